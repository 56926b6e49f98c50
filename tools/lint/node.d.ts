// What Node adds to the web platform's globals, declared loosely for tsc's check of
// the runtime and the reader: the pinned Node toolchain carries no @types/node, so
// Node's modules and these two globals are `any`. Types the code names in JSDoc are
// declared (as `any`) so that naming them is not an error.

declare module "node:http" {
  namespace http {
    type ClientRequest = any;
    type Agent = any;
  }
  const http: any;
  export = http;
}

declare module "node:stream" {
  export type Readable = any;
  export const Readable: any;
}

declare module "node:*";

declare var process: any;
declare var Buffer: any;
