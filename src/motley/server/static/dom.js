// @ts-check
// Helpers shared by the lobby (lobby.js, friends.js) and the replay viewer (replay.js), modules that build the page
// with the DOM API and import these. The one-file replay viewer (`motley replay RECORD --html FILE`) carries this
// file inline, in the same module as replay.js (motley.server.play.replays.standalone_html).

/**
 * The element of the page with this id, or null. Typed loosely, as the pages use their elements (inputs, selects,
 * links, progress bars, as the HTML declares them): an HTMLElement whose other properties are any.
 * @param {string} id
 * @returns {HTMLElement & Record<string, any>}
 */
export const $ = (id) => document.getElementById(id);

/**
 * A new element: `attrs` become attributes, except `text`, its text; the children (nodes or strings) are appended.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string)} children
 * @returns {HTMLElement & Record<string, any>}
 */
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}
