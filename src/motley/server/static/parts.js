// @ts-check
// The pieces of the table page that a game view (games/<game>.js) draws with: the page's state, the players'
// names, card faces, where each seat sits around the table, and a trick laid out by its players' seats.
// table.js fills the state from the server's messages and starts the page; importing this module starts
// nothing, so a game view depends on it and not on table.js.
import { html } from "/static/vendor/preact-htm.js";

export const SETTINGS_KEY = "motley-table-settings";
const DEFAULTS = {autoMoves: true, oneClick: true, sortBy: "suit", trickPause: 1.5, sound: false, drawDelay: 1.5,
                  complete: true, motion: true};

/** @typedef {import("./schema/messages").StateMessage} StateMessage */
/** @typedef {import("./schema/messages").GameObservation} GameObservation */

/**
 * One play of a trick as the page lays it out: the seat, its card (or cards), and a mark ("winner", "fool"...) and
 * a note ("led", "to beat") shown with it.
 * @typedef {{seat: number, card?: string, cards?: string[], mark?: string, note?: string}} TrickPlay
 */
/**
 * A trick as the page shows it (held on the table when it is won, or under "Last trick"): its plays, its winner
 * (null: none) and a sentence about it; a view may add fields of its own.
 * @typedef {{plays: TrickPlay[], winner?: number | null, caption?: string} & Record<string, any>} TrickShown
 */
/**
 * What a seat shows beside its name (every field optional): its number of cards (and a word after it), the Fool
 * discs it holds (by disc), a title (King...), a note ("dealer, led").
 * @typedef {{count?: number, countWord?: string, discs?: number[], title?: string | null, note?: string}} SeatExtras
 */
/**
 * A line the view adds to the log: its words, and how many of the newest log entries came after it (0: it is the
 * newest).
 * @typedef {{text: string, after: number}} LogNote
 */
/**
 * A score sheet: what a row is ("round", "hand"), and the rows, each a label and the values per seat.
 * @typedef {{label: string, rows: {label: string, values: number[]}[]}} ScoreSheet
 */

/**
 * The contract of a game's view, games/<game>.js, whose default export it is: how the table page draws and reads
 * that game. Every hook is optional; without one the page does the plain thing said after it. ``O``: the game's
 * observation (a seat's own, or the public view without the game's private fields).
 * @template {GameObservation} [O=GameObservation]
 * @typedef {object} GameView
 * @property {boolean} [oneClick] a single legal move of one card is played by clicking that card (the person's
 *   "one-click" setting). Default: a card is selected, and Play plays the selection.
 * @property {string[]} [apart] the suits (``/api/games`` card info ``suit``) shown apart at the right of the hand
 *   (trumps, the Fool, the Joker). Default: none.
 * @property {(obs: O) => string[]} [hand] the viewer's cards, as codes, from its observation. Default: none.
 * @property {boolean} [noHand] the game has no hand to show (the dock has only the move buttons).
 * @property {string} [defaultMove] the move played for the person after their "draw for me" delay (the game's
 *   one routine move). Default: none, and no such setting.
 * @property {(obs: O) => number} [giveCount] how many cards make one move now (the exchange gives several).
 *   Default: 1.
 * @property {(move: string) => string} [moveLabel] a move button's words. Default: the move string.
 * @property {(move: string, entry: import("./schema/messages").LogLine) => string | null} [logText] a log
 *   entry's verb phrase ("drew"), null: the plain "played <move>".
 * @property {(obs: O) => string | number} [trickCount] a key that changes when a trick is completed (the page
 *   then holds the finished trick on the table, see finishedTrick).
 * @property {(obs: O) => string | number} [dealKey] a key that changes when a deal ends (the page then shows the
 *   deal's summary dialog).
 * @property {(obs: O, before: string | number | null) => TrickShown | null} [finishedTrick] the trick just
 *   completed, given the trickCount before this message (null: none to hold).
 * @property {(obs: O) => TrickShown | null} [lastTrick] the last completed trick (the "Last trick" panel; without
 *   this hook the panel is not offered).
 * @property {(obs: O, seat: number) => SeatExtras} [seatExtras] what a seat shows beside its name.
 * @property {(props: {obs: O, held: {trick: TrickShown, until: number, key: string | number} | null}) => any} [Center]
 *   the middle of the table (a Preact component): the trick, the exchange, the line of play; ``held``: the
 *   finished trick held there for a moment.
 * @property {(props: {obs: O}) => any} [Summary] the body of the end-of-deal dialog (a Preact component).
 *   Default: "The deal is over".
 * @property {(obs: O) => ScoreSheet | null} [scoreSheet] the score sheet (the "Score sheet" panel).
 * @property {string[]} [help] paragraphs of how this page is played (the "Help" panel, before the game's rules).
 * @property {(paragraphs: string[], obs: O, players: number) => string[]} [howToPlay] the game's rules (``/api/games``
 *   ``how_to_play``) as this table has them (the parts its player count has). Default: the paragraphs as given.
 * @property {(obs: O) => LogNote[]} [logNotes] lines the view adds to the log from the viewer's own observation.
 *   Default: none.
 * @property {(prev: StateMessage | null, next: StateMessage, show: (step: StateMessage) => void) => Promise<void>}
 *   [showSteps] show a move one step at a time between two state messages (``show`` draws each step's message);
 *   the page waits for it before drawing ``next``.
 */

/**
 * The page's state: the last message (``msg``), the game view (``view``; ``viewError``: why it could not be
 * loaded), card names, selection, connection, settings.
 * @type {{msg: StateMessage | null, view: GameView<any> | null, viewError?: string, cards: Record<string, any>,
 *   gameInfo: any, params: Record<string, any> | null, selected: number[], conn: string, error: string,
 *   sent: number | null, queue: any[], held: {trick: TrickShown, until: number, key: string | number} | null,
 *   why: {key: string | null, reason: string | null, rules: string[]}, autoSent: Set<any>, panel: string | null,
 *   settings: Record<string, any>, lastTricks: string | number | null, hint: string, advice: any, advising: any,
 *   rematch: import("./schema/messages").RematchMessage | null, declined: string[], dialog: string | null,
 *   [key: string]: any}}
 */
export const S = {
  msg: null, view: null, cards: {}, gameInfo: null, params: null, selected: [], conn: "connecting", error: "", sent: null,
  queue: [], held: null, why: {key: null, reason: null, rules: []}, autoSent: new Set(), panel: null,
  settings: loadSettings(), lastTricks: null, hint: "", advice: null, advising: null, rematch: null, declined: [], dialog: null,
};

function loadSettings() {
  try { return {...DEFAULTS, ...JSON.parse(localStorage.getItem(SETTINGS_KEY) || "{}")}; }
  catch { return {...DEFAULTS}; }
}

// ---- people -------------------------------------------------------------------------------------
/** A seat's name as players read it (the seat's own name, "Seat 3" for a seat without one). */
export function nameOf(seat) {
  const msg = S.msg;
  if (!msg || seat === null || seat === undefined || seat < 0) return "";
  const info = msg.seats[seat];
  return info && info.name ? info.name : `Seat ${seat + 1}`;
}

/** "you" for the viewer's own seat, else the seat's name (for sentences: "you win the trick"). */
export function whoOf(seat) {
  return S.msg && S.msg.seat === seat ? "you" : nameOf(seat);
}

/** ``word`` in the singular or plural for ``n``: "1 card", "2 cards". */
export function plural(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}

/** 1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st. */
export function ordinal(k) {
  const tens = k % 100, ones = k % 10;
  const end = tens >= 11 && tens <= 13 ? "th" : ones === 1 ? "st" : ones === 2 ? "nd" : ones === 3 ? "rd" : "th";
  return `${k}${end}`;
}

/** Names joined as a sentence: "Ann", "Ann and Bob", "Ann, Bob and Cleo". */
export function joinNames(names) {
  if (names.length < 2) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

// ---- seats around the table -----------------------------------------------------------------------
/** The angle (radians, 0 = right, pi/2 = down) of ``seat`` around the oval: the viewer (or seat 0 for a
 * spectator) at the bottom, the others clockwise from the viewer's left. */
export function seatAngle(seat) {
  const msg = S.msg;
  const n = msg.seats.length;
  const me = msg.seat === null ? 0 : msg.seat;
  const k = (seat - me + n) % n;
  return Math.PI / 2 + (2 * Math.PI * k) / n;
}

// ---- cards --------------------------------------------------------------------------------------
export function cardInfo(code) {
  return S.cards[code] || {name: code, short: code, suit: "", rank: 0, order: 0};
}

/** A card's name in a sentence: "the 7 of spades", "the blue 10", "the Fool". */
export function cardWords(code) {
  const name = cardInfo(code).name;
  return name.startsWith("the ") ? name : `the ${name}`;
}

const SYMBOLS = {spades: "\u2660", hearts: "\u2665", diamonds: "\u2666", clubs: "\u2663", trump: "",
                 fool: "\u2605", joker: "\u2605", green: "", red: "", yellow: "", blue: "", wild: ""};
export function suitSymbol(suit) { return SYMBOLS[suit] || ""; }

/** The inside of a card face, as the game's SVG drawing has it: a suit card's corner index and large pip, a
 * trump's Roman numeral, a colour card's value on its colour, the star of the Fool and the Joker. */
export function Face({code}) {
  const info = cardInfo(code);
  const symbol = suitSymbol(info.suit);
  if (info.suit === "fool" || info.suit === "joker") {
    return html`<span class="face star" aria-hidden="true"><span class="big">\u2605</span>
      <span class="word">${info.suit === "fool" ? "FOOL" : "JOKER"}</span></span>`;
  }
  if (info.suit === "trump") {
    return html`<span class="face trump" aria-hidden="true"><span class="corner">${info.short}</span>
      <span class="big">${info.short}</span><span class="word">trump</span></span>`;
  }
  if (!symbol) {  // a colour card (Fool!): the value on the colour band, the wild 1 in four bands
    return html`<span class="face band" aria-hidden="true"><span class="corner">${info.short}</span>
      <span class="big">${info.short}</span>${info.suit === "wild" ? html`<span class="word">wild</span>` : null}</span>`;
  }
  return html`<span class="face suited" aria-hidden="true"><span class="corner">${info.short}<br />${symbol}</span>
    <span class="big">${symbol}</span></span>`;
}

/** A card drawn face up (not a control): its face and suit colour, its spoken name for screen readers. */
export function Card({code, mark, small, flip, from}) {
  const info = cardInfo(code);
  return html`<span class=${`card suit-${info.suit}${small ? " small" : ""}${mark ? " " + mark : ""}`}
    data-card=${code} data-flip=${flip} data-from=${from} role="img" aria-label=${info.name}><${Face} code=${code} /></span>`;
}

/** A trick: each play's card (marked winner or Fool) with who played it, and its caption (the Last trick panel). */
export function TrickView({trick}) {
  return html`<div class="trick">
    ${trick.plays.map((p) => html`<div class=${`play${p.mark ? " " + p.mark : ""}`}>
      <span class="cards">${(p.cards || [p.card]).map((c) => html`<${Card} code=${c} mark=${p.mark} />`)}</span>
      <span class="who">${nameOf(p.seat)}</span>
      ${p.note ? html`<span class="note">${p.note}</span>` : null}</div>`)}
    ${trick.caption ? html`<p class="caption">${trick.caption}</p>` : null}
  </div>`;
}

/** The trick on the table: each play by its player's seat (towards the seat's place around the oval), in the
 * order played; ``key`` tells the page's motion which trick this is (a new key: the cards come from the seats). */
export function TrickOnTable({plays, trickKey}) {
  const held = String(trickKey).startsWith("done:");  // a finished trick, shown for a moment before it is gathered
  return html`<div class=${`table-trick${held ? " held" : ""}`} data-trick=${trickKey}>
    ${plays.map((p, k) => {
      const a = seatAngle(p.seat);
      const style = {"--cos": Math.cos(a).toFixed(4), "--sin": Math.sin(a).toFixed(4), zIndex: k + 1};  // style.css places it
      return html`<div class=${`tplay${p.mark ? " " + p.mark : ""}`} style=${style} data-seat=${p.seat}
          key=${`${trickKey}:${p.seat}:${k}`}>
        <span class="cards">${(p.cards || [p.card]).map((c, j) => html`<${Card} code=${c} mark=${p.mark}
          flip=${`${trickKey}:${p.seat}:${k}:${j}`} from=${p.seat} />`)}</span>
        <span class="who">${nameOf(p.seat)}${p.note ? html`<span class="note">, ${p.note}</span>` : null}</span></div>`;
    })}
  </div>`;
}

// ---- the hand's rows -------------------------------------------------------------------------------
/** The narrowest part of a hand card a tap must reach (px), and the part wanted where the count allows. */
export const TAP_MIN = 32;
export const TAP_WANTED = 44;
/** The most rows the hand had in the current deal (handRows). */
let rowsOfDeal = {deal: /** @type {number | null} */ (null), rows: 1};

/**
 * The hand in rows: as few rows (at most 3) as give each card a visible part of TAP_WANTED px, else of TAP_MIN,
 * for the hand's width on this screen (the last drawn hand's, else the window's). Each row is a slice of ``cards``.
 * Within one deal (``deal``: its counter) the rows never become fewer, so the docked hand keeps its height while
 * cards are played: nothing above it moves.
 * @template T
 * @param {T[]} cards
 * @param {number | null} deal
 * @returns {T[][]}
 */
export function handRows(cards, deal = null) {
  const n = cards.length;
  const drawn = document.querySelector(".hand");
  const width = drawn && drawn.clientWidth > 0 ? drawn.clientWidth : Math.max(200, window.innerWidth - 24);
  const cardWidth = (rows) => {  // the card width style.css gives a hand of that many rows on this screen
    const probe = drawn ? getComputedStyle(drawn).getPropertyValue(`--cw-${rows}`) : "";
    return parseFloat(probe) || (rows === 1 ? 56 : 48);
  };
  const visible = (rows) => {
    const per = Math.ceil(n / rows);
    return per <= 1 ? Infinity : Math.min(cardWidth(rows), (width - cardWidth(rows)) / (per - 1));
  };
  const fit = (need) => [1, 2, 3].find((r) => visible(r) >= Math.min(need, cardWidth(r)) || n <= r);
  let rows = fit(TAP_WANTED) || fit(TAP_MIN) || 3;
  if (deal !== null && rowsOfDeal.deal === deal && n > 0) rows = Math.min(Math.max(rows, rowsOfDeal.rows), n);
  if (deal !== null && n > 0) rowsOfDeal = {deal, rows: Math.max(rows, rowsOfDeal.deal === deal ? rowsOfDeal.rows : 0)};
  const per = Math.ceil(n / rows);
  return Array.from({length: rows}, (_, k) => cards.slice(k * per, (k + 1) * per)).filter((row) => row.length);
}
