// A consumer that swallows a failed insert and acks: the message is lost (the bug).
import { recordOrders } from "./orders.ts";

export default recordOrders((message) => message.ack());
