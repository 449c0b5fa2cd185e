"use strict";
// Helpers shared by the lobby (lobby.js) and the replay viewer (replay.js), plain scripts that build the page
// with the DOM API. Loaded before them as a plain script, so its names are theirs; the one-file replay viewer
// (`motley replay RECORD --html FILE`) carries it inline.

/** The element of the page with this id, or null. */
const $ = (id) => document.getElementById(id);

/** A new element: `attrs` become attributes, except `text`, its text; the children (nodes or strings) are appended. */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}
