import { forall } from "eutaxy/spec";
import { takeLast } from "./domain.ts";

// False: the first call empties a one-element queue. The counterexample must
// still show the queue as drawn, not as the function left it.
export const takeTwiceSame = forall(takeLast, {
  when: (queue) => queue.length >= 1,
  ensures: (queue) => takeLast(queue) === takeLast(queue),
});
