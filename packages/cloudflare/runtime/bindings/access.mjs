// @ts-check
/**
 * The Access record: Cloudflare Access in front of the Worker (the config's `access` section,
 * sent as the load message's `accessHeaderPrefix`). In production every request reaches the
 * Worker with the identity Access set in its `Cf-Access-*` headers. Access is not modelled,
 * so a read (`headers.get`, `headers.has`) of such a header that an inbound request lacks
 * marks the run UNSUPPORTED (`access_identity`) rather than showing the Worker a request
 * production never sends it; a header the scenario's request carries is read as given, an
 * identity the scenario models. Python owns the rule (eutaxy.cloudflare.worker
 * ACCESS_HEADER_PREFIX); this record holds none of its own.
 */

import { inboundRequest } from "../http.mjs";
import { refuse } from "../unsupported.mjs";

/**
 * The detail sentence when `name` is an Access header an inbound request lacks, else null.
 * @param {Headers} headers @param {unknown} name @param {string} prefix
 */
function lacking(headers, name, prefix) {
  const request = inboundRequest(headers);
  const header = String(name).toLowerCase();
  if (request === undefined || !header.startsWith(prefix)) return null;
  return (
    `the Worker read header ${header} of request ${request}, which Cloudflare Access sets in production (the ` +
    `config's access section) and the scenario's request does not carry; to model an identity, give the request ` +
    `the headers Access would set (Cf-Access-Jwt-Assertion, Cf-Access-Authenticated-User-Email)`
  );
}

/** @type {import("./record.mjs").BindingRecord} */
export const access = {
  kind: "access",
  globals: (run) => {
    const prefix = /** @type {{accessHeaderPrefix?: string | null}} */ (run.config).accessHeaderPrefix;
    if (!prefix) return [];
    const get = Headers.prototype.get;
    const has = Headers.prototype.has;
    return [
      [Headers.prototype, "get", function (/** @type {string} */ name) {
        const value = get.call(this, name);
        const detail = value === null ? lacking(this, name, prefix) : null;
        if (detail !== null) throw refuse("access_identity", detail);
        return value;
      }],
      [Headers.prototype, "has", function (/** @type {string} */ name) {
        const found = has.call(this, name);
        const detail = found ? null : lacking(this, name, prefix);
        if (detail !== null) throw refuse("access_identity", detail);
        return found;
      }],
    ];
  },
};
