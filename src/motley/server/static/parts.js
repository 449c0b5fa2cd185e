// The pieces of the table page that a game view (games/<game>.js) draws with: the page's state, the players'
// names, card faces and a trick. table.js fills the state from the server's messages and starts the page;
// importing this module starts nothing, so a game view depends on it and not on table.js.
import { html } from "/static/vendor/preact-htm.js";

export const SETTINGS_KEY = "motley-table-settings";
const DEFAULTS = {autoMoves: true, oneClick: true, sortBy: "suit", trickPause: 1.5, sound: false, drawDelay: 1.5,
                  complete: true};

/** The page's state: the last message, the game view, card names, selection, connection, settings. */
export const S = {
  msg: null, view: null, cards: {}, gameInfo: null, params: null, selected: [], conn: "connecting", error: "", sent: null,
  queue: [], held: null, why: {key: null, reason: null}, autoSent: new Set(), panel: null, settings: loadSettings(), lastTricks: null,
};

function loadSettings() {
  try { return {...DEFAULTS, ...JSON.parse(localStorage.getItem(SETTINGS_KEY) || "{}")}; }
  catch { return {...DEFAULTS}; }
}

// ---- people -------------------------------------------------------------------------------------
export function nameOf(seat) {
  const msg = S.msg;
  if (!msg || seat === null || seat === undefined || seat < 0) return "";
  const info = msg.seats[seat];
  const name = info ? info.name : `Seat ${seat + 1}`;
  return msg.seat === seat ? `${name} (you)` : name;
}

// ---- cards --------------------------------------------------------------------------------------
export function cardInfo(code) {
  return S.cards[code] || {name: code, short: code, suit: "", rank: 0, order: 0};
}

/** A card drawn face up (not a control): its label and suit colour, its spoken name for screen readers. */
export function Card({code, mark, small}) {
  const info = cardInfo(code);
  return html`<span class=${`card suit-${info.suit}${small ? " small" : ""}${mark ? " " + mark : ""}`}
    data-card=${code} role="img" aria-label=${info.name}><span class="rank">${info.short}</span>
    <span class="pip" aria-hidden="true">${suitSymbol(info.suit)}</span></span>`;
}

const SYMBOLS = {spades: "\u2660", hearts: "\u2665", diamonds: "\u2666", clubs: "\u2663", trump: "T",
                 fool: "\u2605", joker: "\u2605", green: "G", red: "R", yellow: "Y", blue: "B", wild: "W"};
export function suitSymbol(suit) { return SYMBOLS[suit] || ""; }

/** A trick: each play's card (marked winner or Fool) with who played it, and its caption. */
export function TrickView({trick}) {
  return html`<div class="trick">
    ${trick.plays.map((p) => html`<div class=${`play${p.mark ? " " + p.mark : ""}`}>
      <${Card} code=${p.card} mark=${p.mark} /><span class="who">${nameOf(p.seat)}</span>
      ${p.note ? html`<span class="note">${p.note}</span>` : null}</div>`)}
    ${trick.caption ? html`<p class="caption">${trick.caption}</p>` : null}
  </div>`;
}
