// @ts-check
// The HTTP API in words, read from the server's OpenAPI schema (/openapi.json): each route with its method,
// parameters and request body (fields, types, what each means). The WebSocket protocol is described in
// motley.server.play.protocol; docs/security.md says who may call what.
import { html, render } from "/static/vendor/preact-htm.js";

/** A JSON schema's type in words: "string", "integer or null", "list of SeatRequest", "one of: a, b". */
function typeOf(s) {
  if (!s) return "any";
  if (s.enum) return `one of: ${s.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeOf).join(" or ");
  if (s.type === "array") return `list of ${s.items && s.items.title ? s.items.title : typeOf(s.items)}`;
  if (s.type === "object" && s.title) return s.title;
  return s.type || "any";
}

function Fields({ schema }) {
  const props = schema.properties || {};
  const required = new Set(schema.required || []);
  const nested = Object.values(props).map((p) => (p.type === "array" ? p.items : p))
    .filter((p) => p && p.properties)
    .concat(Object.values(props).flatMap((p) => (p.anyOf || []).map((a) => (a.type === "array" ? a.items : a))
      .filter((a) => a && a.properties)));
  return html`<table class="tables"><thead><tr><th>field</th><th>type</th><th>default</th><th>meaning</th></tr></thead>
    <tbody>${Object.entries(props).map(([name, p]) => html`<tr><td><code>${name}</code>${required.has(name) ? " (required)" : ""}</td>
      <td>${typeOf(p)}</td><td>${p.default === undefined ? "" : JSON.stringify(p.default)}</td>
      <td>${p.description || ""}</td></tr>`)}</tbody></table>
    ${nested.map((n) => html`<h4>${n.title}</h4><p>${n.description || ""}</p><${Fields} schema=${n} />`)}`;
}

function Route({ path, method, op }) {
  const body = op.requestBody && op.requestBody.content && op.requestBody.content["application/json"];
  const params = op.parameters || [];
  return html`<section class="panel" aria-label=${`${method.toUpperCase()} ${path}`}>
    <h2><code>${method.toUpperCase()} ${path}</code></h2>
    ${params.length ? html`<p>Parameters: ${params.map((p, k) => html`${k ? ", " : ""}<code>${p.name}</code> (${p.in}${
      p.required ? ", required" : ""}; ${typeOf(p.schema)})`)}</p>` : null}
    ${body ? html`<h3>Request body: ${body.schema.title || "JSON"}</h3><p>${body.schema.description || ""}</p>
      <${Fields} schema=${body.schema} />` : null}</section>`;
}

async function main() {
  const api = await (await fetch("/openapi.json")).json();
  const routes = Object.entries(api.paths).flatMap(([path, ops]) => Object.entries(ops)
    .map(([method, op]) => ({path, method, op})));
  render(html`<p>${api.info.title} ${api.info.version}: ${routes.length} routes. Bodies are JSON
    (<code>Content-Type: application/json</code>); errors answer <code>{"error": {"code", "message"}}</code>
    with a 4xx or 5xx status, the message naming what is wrong.</p>
    ${routes.map((r) => html`<${Route} ...${r} />`)}`, document.getElementById("docs"));
}

main().catch((e) => { document.getElementById("docs").textContent = `The API description did not load: ${e}`; });
