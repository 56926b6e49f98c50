// The fixed consumer: a failed insert retries the message instead of acking it.
import { recordOrders } from "./orders.ts";

export default recordOrders((message, inserted) => (inserted ? message.ack() : message.retry()));
