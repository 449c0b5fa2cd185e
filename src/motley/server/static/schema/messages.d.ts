// Generated from messages.schema.json by motley.server.play.schema; do not edit.
// The pages import these types in their JSDoc (@ts-check) and tsc --noEmit checks them.

/**
 * ``ping`` (answered by ``pong``), ``start`` (bots stop waiting for people), ``continue`` (the summary was
 * read), ``claim`` (play the seat from this page), ``hint`` (the strongest bot's choice for my decision) or
 * ``back`` (I am back: my stand-in stops playing for me after my move timer ran out, ``SeatInfo.idle``).
 */
export interface BareMessage {
  type: "ping" | "start" | "continue" | "claim" | "hint" | "back";
}

/**
 * One message of a table's chat: its ``number`` at the table (from 1), the writer's ``seat`` (None: a
 * spectator) and ``name``, the ``text`` (plain text, at most 200 characters, no control characters) and ``at``
 * (seconds since the epoch).
 */
export interface ChatLine {
  number: number;
  seat: number | null;
  name: string;
  text: string;
  at: number;
}

/**
 * The table's chat so far (its last lines, oldest first), sent once on connecting, after the first state, where
 * anyone has said something.
 */
export interface ChatLogMessage {
  type: "chat_log";
  lines: Array<ChatLine>;
}

/**
 * Someone at the table said something (:mod:`.chat`).
 */
export interface ChatMessage {
  number: number;
  seat: number | null;
  name: string;
  text: string;
  at: number;
  type: "chat";
}

/**
 * Say ``text`` at the table's chat (a seat; a spectator where the table lets spectators write): plain text of
 * at most 200 characters.
 */
export interface ChatSay {
  type: "chat";
  text: string;
}

export type ClientMessage = MoveByAction | MoveByText | WhyQuestion | BareMessage | ChatSay;

/**
 * A person declines the seat a rematch offered them: token is that seat link's token.
 */
export interface DeclineRequest {
  token: string;
}

/**
 * A refused client message (nothing changed): its code (:mod:`.protocol` lists them) and the message in words;
 * an ``illegal`` move also has the reason in words and the rule ids it names.
 */
export interface ErrorMessage {
  type: "error";
  version: number;
  code: string;
  message: string;
  words?: string | null;
  rules?: Array<string>;
}

/**
 * A completed trick of this round: leader, lead colour, plays, winner and the seats the Fools took.
 */
export interface FoolDoneTrick {
  leader: number;
  lead: string | null;
  plays: Array<FoolPlay>;
  winner: number;
  fools: Array<number>;
}

/**
 * The round that ended last (FL-R13): its number, the points per seat, who went out (+10 bonus), who went
 * out fooled, the Fool takers and the final trick.
 */
export interface FoolLastRound {
  round_number: number;
  scores: Array<number>;
  bonus: Array<number>;
  went_out_fooled: Array<number>;
  fools: Array<number>;
  final_trick: Array<FoolPlay>;
}

/**
 * The information state of a seat of Fool! (:func:`observation` says what each key holds); ``hand`` is the
 * seat's own and absent from the public view (``GameSpec.private_fields``), where ``seat`` is None.
 */
export interface FoolObservation {
  game: "fool";
  players: number;
  seat: number | null;
  current_player: number;
  dealer: number;
  round_number: number;
  hand?: Array<string>;
  hand_sizes: Array<number>;
  trick: FoolTrick;
  tricks: Array<FoolDoneTrick>;
  sitting_out: Array<number>;
  discs: Array<number>;
  num_fools: number;
  voids: Array<Array<string>>;
  scores: Array<number>;
  bonus_counts: Array<number>;
  round_scores: Array<Array<number>>;
  last_round: FoolLastRound | null;
  deck: Record<string, number>;
  deck_table_assumed: boolean;
  terminal: boolean;
  winners: Array<number>;
  returns: Array<number>;
}

/**
 * One card played into a trick: the seat and the card's code.
 */
export interface FoolPlay {
  seat: number;
  card: string;
}

/**
 * The trick in play: its leader (None between rounds), the seats playing it in turn, the lead colour's
 * name (None while unset), the plays so far, and the seat whose card wins it so far (FL-R8; None before its
 * first card).
 */
export interface FoolTrick {
  leader: number | null;
  order: Array<number>;
  lead: string | null;
  plays: Array<FoolPlay>;
  winning: number | null;
}

/**
 * One event of this hand: ``event`` play / pass / skip / trick / out / stuck, its seat, the cards (the
 * play's text, "FOOL" when stuck, else ""), and ``value`` (trick: the next leader; out: the place).
 */
export interface FooleryEvent {
  event: string;
  seat: number;
  cards: string;
  value: number;
}

/**
 * The exchange: its public steps and progress, and the seat's own ``gave``, ``received`` and ``partner``
 * (absent from the public view).
 */
export interface FooleryExchange {
  steps: Array<FooleryExchangeStep>;
  step_index: number;
  step_given: number;
  partner?: number | null;
  gave?: Array<string>;
  received?: Array<string>;
}

/**
 * One step of the exchange: who gives how many cards to whom, by which rule, and how many are given.
 */
export interface FooleryExchangeStep {
  giver: number;
  receiver: number;
  cards: number;
  rule: string;
  given: number;
}

/**
 * A finished hand: the finishing place per seat and the points they scored.
 */
export interface FooleryHandResult {
  places: Array<number>;
  points: Array<number>;
}

/**
 * The information state of a seat of Foolery (:func:`observation` says what each key holds); ``hand`` and
 * ``hand_groups`` are the seat's own and absent from the public view, where ``seat`` is None.
 */
export interface FooleryObservation {
  game: string;
  seat: number | null;
  phase: string;
  current_player: number;
  hand_number: number;
  hands_total: number;
  dealer: number;
  hand?: Array<string>;
  hand_groups?: Array<Array<string>>;
  hand_sizes: Array<number>;
  table: FooleryTopPlay | null;
  passed: Array<number>;
  log: Array<FooleryEvent>;
  places: Array<number | null>;
  next_place: number;
  finishing_order: Array<number>;
  titles: Array<string | null>;
  scores: Array<number>;
  hand_results: Array<FooleryHandResult>;
  exchange: FooleryExchange;
  terminal: boolean;
  returns: Array<number>;
}

/**
 * The play on top of the trick: its seat, its cards (text) and its kind.
 */
export interface FooleryTopPlay {
  seat: number;
  cards: string;
  kind: string;
}

/**
 * A card face up in play: the seat that played it and its code.
 */
export interface FoolsErrandCard {
  seat: number;
  card: string;
}

/**
 * One event of the match (FE-R9 announcements): its kind, seat, card code (None when no card), value and
 * the scale after it.
 */
export interface FoolsErrandEvent {
  event: string;
  seat: number;
  card: string | null;
  value: number;
  scale: number;
}

/**
 * The information state of a seat of Fool's Errand (:func:`observation` says what each key holds; nothing
 * in it is private, so the public view differs only in ``seat``, None).
 */
export interface FoolsErrandObservation {
  game: string;
  seat: number | null;
  current_player: number;
  phase: string;
  scale: number;
  scale_for_you: number;
  in_play: Array<FoolsErrandCard>;
  piles: Array<Array<string>>;
  pile_points: Array<number>;
  unclaimed: Array<string>;
  deck_sizes: Array<number>;
  jokers: Array<string>;
  log: Array<FoolsErrandEvent>;
  actions: Array<number>;
  terminal: boolean;
  returns: Array<number>;
}

/**
 * A game as ``GET /api/games`` describes it: names, player counts, the bots offered (the default first) and
 * the stand-in, the most ISMCTS simulations a bot may use, each card's info (``GameSpec.card_info``), the rules
 * in short paragraphs, a summary, players and length in words, the usual player count, the options that set a
 * match's length, its picture and its options.
 */
export interface GameInfo {
  name: string;
  title: string;
  min_players: number;
  max_players: number;
  bots: Array<string>;
  stand_in: string;
  max_simulations: number;
  cards: Record<string, Record<string, unknown>>;
  how_to_play: Array<string>;
  summary: string;
  at_a_glance: string;
  usual_players: number;
  match_options: Array<string>;
  picture: Picture;
  options: Array<OptionInfo>;
}

/**
 * A state message's observation: a seat's own, or the public view (the game's private fields left out); each game's GameSpec.observation_type.
 */
export type GameObservation = FoolsErrandObservation | FoolObservation | FooleryObservation;

/**
 * The answer to a ``hint``, to the asking connection only: the version and seat it is for, and the cards the
 * move plays.
 */
export interface HintMessage {
  action: number;
  move: string;
  words: string;
  why: string;
  win?: number;
  points?: number;
  visits?: number;
  type: "hint";
  version: number;
  seat: number;
  cards: Array<string>;
}

/**
 * A legal move of the viewer's: its action id, its move string, the card codes it plays
 * (:func:`~motley.server.play.table.move_cards`) and its small drawing (None unless the viewer asked for SVG).
 */
export interface LegalMove {
  action: number;
  move: string;
  cards: Array<string>;
  svg: string | null;
}

/**
 * A log entry as its viewer may read it: its number, the seat, who made it (``seat``: the person, ``bot``,
 * ``forced``, or the person's stand-in: ``timer``, ``away`` or ``idle``), the move (None when hidden from the
 * viewer), and whether it was the seat's only legal move.
 */
export interface LogLine {
  n: number;
  seat: number;
  actor: string;
  move: string | null;
  forced: boolean;
}

/**
 * A move by its action id (from the state's ``legal`` list), made at table version ``version``; ``seat``, if
 * given, must be the connection's own.
 */
export interface MoveByAction {
  type: "move";
  version: number;
  action: number;
  seat?: number;
}

/**
 * A move by its move string (at most 200 characters), made at table version ``version``.
 */
export interface MoveByText {
  type: "move";
  version: number;
  move: string;
  seat?: number;
}

/**
 * A game option for a person choosing it (:meth:`motley.core.options.Option.describe`): ``choice_labels[i]``
 * are the words for ``choices[i]``; ``explanation`` is ``doc`` without its rule ids, listed in ``rules``;
 * ``minimum``/``maximum``: the bounds a table on this server allows; ``seats``: the option names a seat (its
 * whole-number choices are seats from 0, worded from 1; a form offers those of the table's player count).
 */
export interface OptionInfo {
  name: string;
  label: string;
  doc: string;
  default: unknown;
  kind: string;
  assumed: boolean;
  seats: boolean;
  minimum: unknown;
  maximum: unknown;
  choices: Array<unknown>;
  choice_labels: Array<string>;
  explanation: string;
  rules: Array<string>;
}

/**
 * A game's picture for the first page: its address and size (pixels).
 */
export interface Picture {
  url: string;
  width: number;
  height: number;
}

/**
 * The answer to a ``ping``.
 */
export interface PongMessage {
  type: "pong";
  version: number;
}

/**
 * The person invited to seat ``seat`` of the rematch declined it: the seat is open now.
 */
export interface RematchDeclinedMessage {
  type: "rematch_declined";
  seat: number;
  name: string;
}

/**
 * A rematch offered at this table, as its viewer reads it: the new table, the viewer's own link (the watch
 * link for anyone without a seat there), the old seat that offered it, the viewer's new seat (None: none) and
 * the new table's seats.
 */
export interface RematchMessage {
  type: "rematch";
  table: string;
  link: string;
  offered_by: number;
  you: number | null;
  seats: Array<RematchSeatInfo>;
}

/**
 * A rematch of a finished table, asked by a person at it: token is their seat link's token; seats
 * (optional, one per seat of the table, in the new order): who sits where, and the bots.
 */
export interface RematchRequest {
  token: string;
  seats?: Array<RematchSeat> | null;
}

/**
 * A seat of a rematch, in the new seat order: who sits there. ``from``: the old table's seat (a person
 * seat must keep a person of the old table; a bot seat may name an old bot seat to keep that bot as it was,
 * or null); ``bot`` and ``strength`` for a bot seat (as in a table request); ``name`` for a person seat
 * (default: the person's name at the old table).
 */
export interface RematchSeat {
  from?: number | null;
  kind: "human" | "bot";
  bot?: ("random" | "heuristic" | "ismcts" | "best") | null;
  strength?: number | null;
  name?: string | null;
}

/**
 * A seat of a rematch's new table (never a token).
 */
export interface RematchSeatInfo {
  name: string;
  kind: string;
  bot: string | null;
}

/**
 * What a replay viewer needs before its first step (``GET /api/tables/{id}/replay``).
 */
export interface ReplayIndex {
  title: string;
  moves: number;
  names: Array<string>;
  finished: boolean;
  marks: Array<ReplayMark>;
  sheet: Array<SheetLine>;
}

/**
 * Where a round or hand begins in a replay: the step to jump to and its name.
 */
export interface ReplayMark {
  step: number;
  stage: string;
}

/**
 * A finished table after ``step`` moves as ``view`` (a seat, None: the public view) sees it: its drawing, the
 * scores, the newest log lines, the events the move added (the game's own log entries), where the match is.
 */
export interface ReplayStep {
  step: number;
  moves: number;
  svg: string;
  scores: Array<number>;
  log: Array<LogLine>;
  title: string;
  names: Array<string>;
  view: number | null;
  events: Array<Record<string, unknown>>;
  stage: string;
}

/**
 * Public facts about a seat (never a token): its name, ``kind`` (``human`` or ``bot``), its bot (bot seats
 * only), whether its person is connected or away (gone longer than the grace time: the stand-in plays for them);
 * a person seat's ``stand_in`` (the kind of the bot that plays for them when they cannot, e.g. ``heuristic``);
 * ``grace_left``: seconds before the stand-in takes over from a person who lost the connection (None: connected,
 * away already, or never connected); ``idle``: the person let the move timer run out
 * ``Settings.expiries_to_stand_in`` times in a row, so the stand-in plays for them until they move or say they
 * are back.
 */
export interface SeatInfo {
  seat: number;
  name: string;
  kind: string;
  bot: string | null;
  connected: boolean;
  away: boolean;
  stand_in: string | null;
  grace_left: number | null;
  idle: boolean;
}

/**
 * One seat of a new table: a person (open: anyone in the lobby may claim it; else only its invite link
 * plays it) or a bot (bot: random, heuristic, ismcts or best, the game's strongest; strength: ISMCTS simulations
 * per move).
 */
export interface SeatRequest {
  kind: "human" | "bot";
  name?: string | null;
  open?: boolean;
  bot?: ("random" | "heuristic" | "ismcts" | "best") | null;
  strength?: number | null;
}

/**
 * The seats changed (someone connected, left or came back).
 */
export interface SeatsMessage {
  type: "seats";
  version: number;
  seats: Array<SeatInfo>;
}

export type ServerMessage = StateMessage | SeatsMessage | WhyMessage | ErrorMessage | PongMessage | HintMessage | RematchMessage | RematchDeclinedMessage | ChatMessage | ChatLogMessage;

/**
 * A line of a replay's score sheet: the round or hand, the step it ends at, and the totals then.
 */
export interface SheetLine {
  stage: string;
  step: number;
  scores: Array<number>;
}

/**
 * The table as one viewer sees it, after every change: the shared part, the viewer's seat (None: a spectator),
 * its observation, its legal moves (on its turn), the log it may read; ``live`` (a seat's connections only):
 * whether this page is the one that plays the seat; ``svg`` (viewers that asked for SVG): the drawing of the
 * observation. The first message a connection gets also has the game's ``params`` (its options as resolved),
 * the table's ``settings`` and ``commitment`` (the hash of the seed), and ``opening`` when this person was the
 * last one the table waited for.
 */
export interface StateMessage {
  type: "state";
  table: string;
  version: number;
  game: string;
  title: string;
  current_player: number;
  terminal: boolean;
  scores: Array<number>;
  returns: Array<number> | null;
  seats: Array<SeatInfo>;
  deadline: number | null;
  end_reason: string | null;
  waiting_for?: Array<number>;
  summary?: SummaryInfo | null;
  hints?: Array<number> | null;
  seat: number | null;
  observation: GameObservation;
  legal: Array<LegalMove>;
  log: Array<LogLine>;
  live?: boolean;
  svg?: string;
  params?: Record<string, unknown>;
  settings?: TableSettings;
  commitment?: string;
  opening?: boolean;
}

/**
 * The summary shown at the end of a deal: its deal number (from 1), the person seats still reading it, and the
 * seconds left before it ends by itself (None: no limit).
 */
export interface SummaryInfo {
  deal: number;
  waiting: Array<number>;
  until: number | null;
}

/**
 * A table as ``GET /api/tables`` lists it (public facts only, no token): ``free_seats`` counts the open seats
 * nobody claimed, ``waiting_for`` the person seats whose person never connected; ``stage``: where the match is,
 * in words; ``age``: seconds since it was made; ``created``: when (seconds since the epoch).
 */
export interface TableLine {
  id: string;
  game: string;
  title: string;
  players: number;
  version: number;
  finished: boolean;
  created: number;
  seats: Array<SeatInfo>;
  commitment: string;
  free_seats: number;
  names: Array<string>;
  waiting_for: number;
  stage: string;
  age: number;
}

/**
 * A new table: the game, its options and player count, a seat for each player (default: one person,
 * heuristic bots), and its timers. The seed is never the creator's: the server draws it.
 */
export interface TableRequest {
  game: string;
  players?: number | null;
  options?: Record<string, unknown>;
  seats?: Array<SeatRequest> | null;
  /**
   * seconds per move; null: no move timer
   */
  move_time?: number | null;
  /**
   * seconds a disconnected person keeps the seat
   */
  grace?: number | null;
  /**
   * seconds a bot waits before it moves
   */
  bot_delay?: number | null;
  /**
   * bots wait until every person has connected
   */
  wait_for_people?: boolean | null;
  /**
   * seconds before a forced move (the only legal one) is played
   */
  pace?: number | null;
  /**
   * seconds the end of a deal waits for the people to continue; 0: no wait; null: without limit
   */
  summary_wait?: number | null;
  /**
   * a friendly table: each person may ask for the strongest bot's choice, once per decision (default false)
   */
  hints?: boolean | null;
  /**
   * spectators may write in the table's chat too (the seats always may; default false)
   */
  spectator_chat?: boolean | null;
  /**
   * after this many move timers in a row ran out on a person (1..20), their stand-in plays for them until they move or are back; null: never
   */
  expiries_to_stand_in?: number | null;
}

/**
 * A table's settings (:class:`~motley.server.store.records.Settings`; times in seconds).
 */
export interface TableSettings {
  move_time: number | null;
  grace: number;
  bot_delay: number;
  wait_for_people: boolean;
  pace: number | null;
  summary_wait: number | null;
  hints: boolean;
  spectator_chat: boolean;
  expiries_to_stand_in: number | null;
}

/**
 * The answer to a ``why``: the engine's ``reason`` the move is refused now (None: it is legal), that reason
 * in words without rule ids, and the rule ids it names.
 */
export interface WhyMessage {
  type: "why";
  version: number;
  move: string;
  reason: string | null;
  words: string | null;
  rules: Array<string>;
}

/**
 * Is this move legal now, and if not why? (Nothing moves.)
 */
export interface WhyQuestion {
  type: "why";
  move: string;
}

