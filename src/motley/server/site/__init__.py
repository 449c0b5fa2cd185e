"""The site room: what a process needs to share tables with others over one store: leases (:mod:`.leases`), the
news channel (:mod:`.news`), the lobby across processes (:mod:`.lobby`), the signed internal channel
(:mod:`.signing`) and the drain on SIGTERM (:mod:`.draining`). It imports the play and store rooms."""
