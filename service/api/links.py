"""OpenAPI links: from a new game, and from each action's answer, to what the game's id opens.

A client (or schemathesis's stateful testing) follows them to read the game and
play it: ``game_id`` comes from the answer's ``id``; the bearer token from a new
anonymous game's ``token`` (``Authorization: Bearer <token>``), which later
actions on that game must send again.
"""

from __future__ import annotations

from apispec import BasePlugin

GAME = "/v1/games/{game_id}"
#: Each action's path segment and operationId (links name operations by id: stable, no JSON pointer).
ACTIONS = {"moves": "moveCards", "draw": "drawCards", "recycle": "recycleWaste", "undo": "undoAction",
           "take-back": "takeBackCard", "tap": "tapCard"}
READS = {"GetGame": "getGame", "GetHistory": "listGameActions", "GetLegalMoves": "listLegalMoves"}
ID = "$response.body#/id"


def _links(with_token: bool) -> dict:
    links = {name: {"operationId": operation, "parameters": {"path.game_id": ID}} for name, operation in READS.items()}
    for action, operation in ACTIONS.items():
        parameters = {"path.game_id": ID}
        if with_token:
            parameters["header.Authorization"] = "Bearer {$response.body#/token}"
        name = "".join(part.capitalize() for part in action.split("-"))
        links[f"Play{name}"] = {
            "operationId": operation, "parameters": parameters,
            "description": f"`{action}` on this game, with the owner's bearer token.",
        }
    return links


class LinksPlugin(BasePlugin):
    """apispec plugin adding the links to the 201 of ``POST /v1/games`` and the 200 of every action."""

    def operation_helper(self, path=None, operations=None, **kwargs) -> None:
        if not operations or "post" not in operations:
            return
        if path == "/v1/games":
            status, with_token = "201", True
        elif path and path.startswith(GAME + "/") and path.rsplit("/", 1)[1] in ACTIONS:
            status, with_token = "200", False
        else:
            return
        responses = operations["post"].get("responses", {})
        response = responses.get(status, responses.get(int(status)))
        if isinstance(response, dict):
            response["links"] = _links(with_token)
