// @ts-check
/**
 * What user code gets for `import { connect } from "cloudflare:sockets"`: the bundle
 * resolves that module here, so opening a raw socket makes the run UNSUPPORTED instead of
 * reaching the network.
 */

import { trappedConnect } from "./unsupported.mjs";

export const connect = trappedConnect;
export default { connect };
