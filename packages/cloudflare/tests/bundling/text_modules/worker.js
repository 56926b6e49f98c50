import page from "./page.html";
import notes from "./notes.md";
import motto from "./motto.txt";
import query from "./insert.sql";
import bytes from "./bytes.bin";
import adder from "./add.wasm";

export default {
  async fetch(request, env) {
    const { exports } = await WebAssembly.instantiate(adder);
    const parts = [
      typeof page === "string" && page.includes("<h1>Hello</h1>") ? "html" : `html? ${typeof page}`,
      typeof notes === "string" && notes.startsWith("# Notes") ? "md" : `md? ${typeof notes}`,
      motto.trim(),
      bytes instanceof ArrayBuffer ? `bin ${new Uint8Array(bytes).join(",")}` : `bin? ${Object.prototype.toString.call(bytes)}`,
      adder instanceof WebAssembly.Module ? `wasm ${exports.add(2, 3)}` : "wasm?",
    ];
    await env.DB.prepare(query.trim()).bind(parts.join(" | ")).run();
    return new Response(page, { headers: { "content-type": "text/html" } });
  },
};
