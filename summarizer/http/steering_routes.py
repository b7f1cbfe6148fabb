"""What steers an agent's summary over HTTP: its pins and its summary instructions.

The documents are those of `summarizer pins --json` and `summarizer agent show --json` (pins, their room).
A refused pin or instruction answers 422 with the reason (how much room is left, how long is too long); an
unknown pin 404. Changes are recorded as made by `http` (with the token's scope when it has one).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query
from pydantic import BaseModel, Field

from summarizer.api import Summarizer
from summarizer.http.auth import AgentId, Principal, WritableAgentId, current_principal
from summarizer.http.schemas import AUTH_ERRORS, Document, Responses, problem
from summarizer.http.wiring import Services
from summarizer.service.steering import MAX_INSTRUCTIONS_CHARS, InstructionsRefused, PinRefused, UnknownPin
from summarizer.views import pins_document

Caller = Annotated[Principal, Depends(current_principal)]

router = APIRouter(prefix="/v1/agents/{agent_id:path}", tags=["host"])

ERRORS: Responses = {**AUTH_ERRORS, 404: problem("Unknown agent (or, to unpin, unknown pin)")}
REFUSED: Responses = {
    **ERRORS,
    422: problem("Refused: over the pins' share of the cap, a bad name, too long"),
}


class PinIn(BaseModel):
    text: str = Field(description="Kept word for word at the head of the summary")
    name: str | None = Field(
        default=None, description="Default: the next free pin-N; a pin of that name is replaced"
    )


class PinOut(Document):
    name: str
    text: str
    pinned_at: str
    by: str


class PinsOut(Document):
    agent_id: str
    pins: list[PinOut]
    room_tokens: int


class InstructionsIn(BaseModel):
    text: str = Field(max_length=MAX_INSTRUCTIONS_CHARS, description="Added to what the model is asked")


class SteeringOut(Document):
    agent_id: str
    instructions: str | None
    now_item: bool | None


def _actor(principal: Principal) -> str:
    return "http" if principal.prefix is None else f"http@{principal.prefix}"


def _pins_doc(facade: Summarizer, agent_id: str) -> dict[str, Any]:
    return pins_document(facade.steering, agent_id)


@router.get("/pins", response_model=PinsOut, responses=ERRORS)
def list_pins(agent_id: AgentId, wired: Services) -> dict[str, Any]:
    """The agent's pins as they show at the head of its summary, the "Now" pin first."""
    return _pins_doc(wired.summarizer, agent_id)


@router.post("/pins", response_model=PinsOut, status_code=201, responses=REFUSED)
def add_pin(agent_id: WritableAgentId, body: PinIn, wired: Services, caller: Caller) -> dict[str, Any]:
    """Pin a text (a new summary version); the answer lists the pins after it."""
    try:
        wired.summarizer.pin(agent_id, body.text, name=body.name, by=_actor(caller))
    except PinRefused as exc:
        raise HTTPException(422, str(exc)) from exc
    return _pins_doc(wired.summarizer, agent_id)


@router.delete("/pins", response_model=PinsOut, responses=REFUSED)
def remove_pin(
    agent_id: WritableAgentId,
    wired: Services,
    caller: Caller,
    name: Annotated[str, Query(description="The pin's name")],
) -> dict[str, Any]:
    """Unpin `name` (a new summary version); the answer lists the pins left."""
    try:
        wired.summarizer.unpin(agent_id, name, by=_actor(caller))
    except UnknownPin as exc:
        raise HTTPException(404, str(exc)) from exc
    except PinRefused as exc:
        raise HTTPException(422, str(exc)) from exc
    return _pins_doc(wired.summarizer, agent_id)


def _steering_doc(facade: Summarizer, agent_id: str) -> dict[str, Any]:
    found = facade.agent_steering(agent_id)
    return {"agent_id": agent_id, "instructions": found.instructions, "now_item": found.now_item}


@router.get("/instructions", response_model=SteeringOut, responses=ERRORS)
def get_instructions(agent_id: AgentId, wired: Services) -> dict[str, Any]:
    """The agent's summary instructions and its "Now" pin choice (null: the server's setting)."""
    return _steering_doc(wired.summarizer, agent_id)


@router.put("/instructions", response_model=SteeringOut, responses=REFUSED)
def put_instructions(agent_id: WritableAgentId, body: InstructionsIn, wired: Services) -> dict[str, Any]:
    """Set the words added to what the model is asked when it summarizes this agent."""
    try:
        wired.summarizer.set_instructions(agent_id, body.text)
    except InstructionsRefused as exc:
        raise HTTPException(422, str(exc)) from exc
    return _steering_doc(wired.summarizer, agent_id)


@router.delete("/instructions", response_model=SteeringOut, responses=ERRORS)
def clear_instructions(agent_id: WritableAgentId, wired: Services) -> dict[str, Any]:
    """Remove the agent's summary instructions."""
    wired.summarizer.set_instructions(agent_id, None)
    return _steering_doc(wired.summarizer, agent_id)
