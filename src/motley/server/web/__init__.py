"""The web room: the FastAPI app (:mod:`.app`), its HTTP routes, one router per resource (:mod:`.routes`), the
viewer's WebSocket (:mod:`.sockets`) and its shared SVG drawings (:mod:`.drawings`), every refusal answered in one
place (:mod:`.refusals`), reading a request (:mod:`.reading`), finding its table (:mod:`.lookup`), what the routes
share (:mod:`.context`), the connection guards in front of Uvicorn (:mod:`.connections`) and a test server
(:mod:`.testing`). It sits on top of the other rooms."""
