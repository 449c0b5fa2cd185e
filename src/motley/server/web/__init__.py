"""The web room: the FastAPI app (:mod:`.app`), its HTTP and WebSocket routes (:mod:`.transport`), the connection
guards in front of Uvicorn (:mod:`.connections`) and a test server (:mod:`.testing`). It sits on top of the other
rooms."""
