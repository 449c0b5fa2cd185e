"""The play room: a table as data and rules (:mod:`.table`), a table in play with its seats, timers and bots
(:mod:`.live`), the WebSocket protocol (:mod:`.protocol`), what a viewer may see (:mod:`.privacy`), hints and
analyses, the bots' worker processes (:mod:`.thinking`), the bots the web offers (:mod:`.web_bots`), request bodies
and the records made from them (:mod:`.bodies`, :mod:`.requests`), replays, the limits, and the set of tables
(:mod:`.service`). It imports the store room, never the site or the web."""
