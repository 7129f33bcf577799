"""The MCP server: identity, instructions, tools, resources and prompts, served on stdio.

`build_server(settings)` assembles an `MCPServer` and does nothing else: no network,
no cache, no key file, not even the tool table, the output models, the resource
templates or the prompts, so a client's spawn-to-`initialize` time stays close to
that of a bare SDK server. Once the client says `notifications/initialized`, one
thread prepares the tool listing (from this installation's saved snapshot when there
is one) and registers tools, templates and prompts, and then the catalog source
(`pwc_local.runtime.LazyRuntime`) is built, so neither the first `tools/list` nor
the first tool call pays for them. The runtime is closed when the session ends (the
server lifespan).

`PwcServer` adjusts three SDK behaviours in `call_tool`, the SDK's public entry
point for a `tools/call`, so that every tool error carries a code:

* arguments that fail the input schema are reported as
  `invalid_argument: limit must be at most 25` instead of pydantic's text, which has
  no code and echoes the rejected values;
* an unknown tool name is reported as `not_found: unknown tool ...`;
* an argument the tool does not take is refused (`invalid_argument: unknown argument
  ...; the tool takes query, mode, ...`), as the CLI refuses it, where the SDK would
  drop it silently;
* a crash the SDK catches outside a tool body is `internal_error: ...`;
* a JSON number sent for a paper or entity reference (`paper: 1706.03762`) is read
  as the reference text it stands for before validation (`server/lenient.py`).

It also checks `prompts/get` itself: the SDK answers an unknown prompt or a wrong
argument with JSON-RPC code 0 and logs a traceback that quotes the caller's
arguments; we answer -32602 with a `code: sentence` and log nothing.
"""

from __future__ import annotations

import gc
import inspect
import logging
import threading
import time
import types
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.server.caching import CacheHint
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    NotificationParams,
)
from mcp_types import Prompt as MCPPrompt
from mcp_types import Resource as MCPResource
from mcp_types import ResourceTemplate as MCPResourceTemplate
from mcp_types import Tool as MCPTool
from pydantic import AnyUrl, BaseModel, ValidationError

from pwc_local import __version__
from pwc_local.config import Settings
from pwc_local.runtime import LazyRuntime
from pwc_local.server import sdk, text
from pwc_local.server.completions import register_completions
from pwc_local.server.errors import (
    error_message,
    prompt_arguments_message,
    unknown_arguments_message,
    unknown_prompt_message,
    unknown_tool_message,
    validation_message,
)
from pwc_local.server.lenient import lenient_arguments

# Nothing on the way to `initialize` needs the tool table, the output models, the
# listing machinery, the resource templates or the prompts: they are imported where
# they are registered (`ensure_tools`, `ensure_templates`, in the preparation thread)
# or listed, never at start-up.
if TYPE_CHECKING:
    from pwc_local.server.bindings import ToolSpec
    from pwc_local.server.descriptors import ClaimedDescriptor
    from pwc_local.server.early import Handover
    from pwc_local.server.tools import CatalogTools

logger = logging.getLogger(__name__)

# The services (`tools.SERVICES`) through which a tool may wait on the catalog.
CATALOG_NEEDS = frozenset({"catalog", "live"})

# How long the background registration of the listed tools lets a running tool call go
# first, per tool (a call waiting on the catalog leaves the interpreter free anyway).
CALLS_FIRST_SECONDS = 1.0

HOUR_MS = 3_600_000
# Clients may cache listings for an hour (they never change while serving) and resource
# contents for five minutes, as the hosted server advertises.
CACHE_HINTS = {
    "server/discover": CacheHint(ttl_ms=HOUR_MS, scope="public"),
    "tools/list": CacheHint(ttl_ms=HOUR_MS, scope="public"),
    "resources/templates/list": CacheHint(ttl_ms=HOUR_MS, scope="public"),
    "resources/read": CacheHint(ttl_ms=300_000, scope="public"),
}


class PwcServer(MCPServer):
    """`MCPServer` whose every tool-call failure, inside a tool or not, carries a code.

    Nothing is registered at construction that `initialize` does not need. Tools,
    resource templates and prompts each cost pydantic models and schemas, and the
    tools need the bindings and the output models too (whose modules are not
    even imported before then). Serving (`run_stdio`) calls `prepare_after_initialize()`;
    when the client then says `notifications/initialized`, one thread does, in the
    order the client needs them: the listing, from this installation's saved
    snapshot when there is one (`listing.snapshot_path`, next to the cache); the
    tools (`ensure_tools`: with a listing in hand, only the bindings, each tool being
    registered with the SDK on its first call); the runtime (`on_initialized`); the
    resource templates and prompts (`ensure_templates`). So nothing competes with the answer to
    `initialize` for the interpreter. A request that needs any of it first waits
    for that part or does it itself.

    Without `prepare_after_initialize` (tests), the first request that needs the
    listing, the tools or the templates does that work, and `on_initialized` still
    runs in a thread when the client says `notifications/initialized`, so the first
    tool call does not pay for the HTTP client and the cache.

    Each piece is kept for a gain measured with `benchmarks/run.py --startup-only`
    (11 spawns each, mcp 2.3, a busy 2-CPU machine; figures are ours / bare SDK):

    | piece                          | without it                                     |
    | ------------------------------ | ---------------------------------------------- |
    | tools, templates, prompts      | registering the tools costs 170 ms CPU and the |
    | registered after `initialize`  | listing 146 ms, against 1.38 s for a bare      |
    |                                | server's start-up: spawn -> initialize would   |
    |                                | pass its 1.10x limit                           |
    | the preparation thread and     | spawn -> tools/list 1.09x instead of 0.85x:    |
    | the listing snapshot           | the listing comes 341 ms after `initialize`    |
    |                                | instead of 15 ms (the two target figures held: |
    |                                | initialize 0.90x, first call 1.5x)             |
    | the collector held off during  | spawn -> initialize 1.02x instead of 0.92x,    |
    | start-up (`cli._serve`,        | first call 3.2x the second instead of 2.6x;    |
    | `run_stdio`)                   | 1.48 s CPU to import and build it, not 1.34 s  |

    For a tool returning `Annotated[CallToolResult, Model]` the listing publishes
    `listing.output_schema(Model)`, the compact schema clients validate
    `structuredContent` against; the SDK still checks every result against
    `Model` itself, so a malformed result is an `internal_error` answer.
    """

    def __init__(
        self,
        *args: Any,
        register_tools: Callable[[MCPServer, Collection[str] | None], None] | None = None,
        register_templates: Callable[[MCPServer], None] | None = None,
        on_initialized: Callable[[], None] | None = None,
        versioned: bool = True,
        **kwargs: Any,
    ) -> None:
        # Whether output schemas keep `schema_version` (the hosted profile sends it).
        self.versioned = versioned
        self._register_templates = register_templates
        self._registering_templates = threading.Lock()
        self.tool_names: set[str] = set()
        # Registers the tools named, or (None) every one; dropped once all are registered.
        self._register_tools = register_tools
        self._registering = threading.Lock()
        self._tools_ready = False
        # The bindings by tool name, loaded with the tools (`ensure_tools`).
        self._specs: Mapping[str, ToolSpec] = {}
        self._output_models: dict[str, type[BaseModel]] = {}
        self._listing: list[MCPTool] | None = None
        # Where this installation's listing snapshot is, worked out once (it stats every
        # source file) by whoever needs it first: the preparation thread or tools/list.
        self._locate_snapshot: Callable[[], Path] | None = None
        self._looking_up_snapshot = threading.Lock()
        self._snapshot: Path | None = None  # where to save the listing once built
        self._prepare_when_initialized = False
        self._then: Callable[[], None] | None = None
        self._on_initialized = on_initialized
        self._background: list[threading.Thread] = []
        # Tool calls running: the listed tools are registered in the background only
        # while none is, so that a client's first call does not share the interpreter.
        self._calls_running = 0
        self._calls_changed = threading.Condition()
        super().__init__(*args, **kwargs)
        sdk.on_initialized(self, self._initialized)

    def add_tool(  # type: ignore[override]  # forwards every keyword unchanged
        self, fn: Callable[..., Any], name: str | None = None, **kwargs: Any
    ) -> None:
        from pwc_local.server.hygiene import keep_text_verbatim
        from pwc_local.server.listing import output_model_of

        name = name or fn.__name__
        if name in self.tool_names:  # registered on its first call, before all the rest
            return
        model = output_model_of(fn)
        # Given `Annotated[CallToolResult, Model]` the SDK generates the model's full JSON
        # schema for every tool (a third of registering them all), only to publish it, and
        # the listing publishes the compact one instead. So the SDK gets the function
        # without the model, then the model and its compact schema on the registered tool:
        # results are validated against the model all the same (it reads the fields live).
        plain = _returning_plain_result(fn) if model is not None else None
        super().add_tool(plain or fn, name=name, **kwargs)
        self.tool_names.add(name)
        tool = sdk.registered_tool(self, name)
        if model is not None:
            self._output_models[name] = model
            if plain is not None:
                schema = self._published_output_schema(name, model)
                sdk.validate_results_as(tool, model, schema)
        # "null" or "[1,2]" typed into a text parameter must arrive as that text.
        keep_text_verbatim(tool)

    def _published_output_schema(self, name: str, model: type[BaseModel]) -> dict[str, Any]:
        """Tool `name`'s compact output schema: from the saved listing, else generated."""
        for tool in self._listing or ():
            if tool.name == name and tool.output_schema is not None:
                return tool.output_schema
        from pwc_local.server.listing import output_schema

        return output_schema(model, self.versioned)

    def prepare_after_initialize(
        self,
        snapshot_dir: Callable[[], Path] | None = None,
        tools: str = "all",
        then: Callable[[], None] | None = None,
    ) -> None:
        """Once the session is initialized, prepare everything in one thread, in order.

        First what the client asks for at once (the listing), then what its first
        tool call needs (the tools, then `on_initialized`: the runtime), then the
        resource templates and prompts, and last `then()`. `snapshot_dir()` (called
        in that thread, or by the first `tools/list`) names the directory of the
        saved listing snapshot: the listing is answered from this installation's
        snapshot (for this `tools` setting) when there is one, and saved there when
        there is not (`listing.snapshot_path`).
        """
        self._snapshot_at(snapshot_dir, tools)
        self._prepare_when_initialized = True
        self._then = then

    def prepare_now(
        self,
        snapshot_dir: Callable[[], Path] | None = None,
        tools: str = "all",
        then: Callable[[], None] | None = None,
        listing: list[dict[str, Any]] | None = None,
    ) -> None:
        """Do in this thread, at once, what `prepare_after_initialize` would do later.

        For a server the early path (`server/launch.py`) builds while it answers the
        handshake itself: the listing and the tools are ready before the server takes
        over; the runtime, then the templates and prompts, follow in a thread, as they
        did after `notifications/initialized`, which then finds it all started.
        `listing` is the early answers' own (the tools as listed): with it no output
        schema is generated and no snapshot is needed, as the SDK never lists the tools
        the early path listed, so a snapshot would never be saved.
        """
        if listing is None or not self._take_listing(listing):
            self._snapshot_at(snapshot_dir, tools)
        self._then = then
        self._prepare()
        warm_up, self._on_initialized = self._on_initialized, None

        def rest() -> None:
            if warm_up is not None:
                warm_up()
            self._prepare_rest(prepare=True)

        self._start_background(rest, "pwc-start-up")

    def _snapshot_at(self, snapshot_dir: Callable[[], Path] | None, tools: str) -> None:
        if snapshot_dir is None:
            return

        def locate() -> Path:
            from pwc_local.server.listing import snapshot_path

            return snapshot_path(snapshot_dir(), tools)

        self._locate_snapshot = locate

    def _start_background(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        self._background.append(thread)
        thread.start()

    def join_background(self, timeout: float) -> None:
        """Wait (at most `timeout` seconds in all) for the preparation and warm-up threads.

        A session can end before they do (a client that closes stdin at once). The
        interpreter must not shut down under a thread that is still importing modules:
        CPython then aborts the process (exit status 134) instead of exiting 0.
        """
        deadline = time.monotonic() + timeout
        for thread in list(self._background):
            thread.join(max(0.0, deadline - time.monotonic()))

    def _prepare(self) -> None:
        """The listing and the bindings; a failure is left for the first `tools/list`.

        With a listing (saved or the early answers'), each tool is registered with the
        SDK on its first call (a twentieth of a second for all 33 at once); without
        one, all are registered here, to generate the listing from.
        """
        try:
            self._load_saved_listing()
            if self._listing is None:
                self.ensure_tools()  # (generates the compact output schemas)
            else:
                self._load_bindings()
                if self._register_tools is not None:
                    self._register_tools(self, ())  # the call path, no tool yet
        except Exception as exc:  # the first tools/list tries again and reports it
            logger.debug("preparing the tool listing failed: %s", type(exc).__name__)

    def _load_saved_listing(self) -> None:
        """Take the listing from this installation's snapshot, if there is one (once)."""
        with self._looking_up_snapshot:
            locate, self._locate_snapshot = self._locate_snapshot, None
            if locate is None:
                return
            from pwc_local.server.listing import load_snapshot

            path = locate()
            saved = load_snapshot(path)
            if saved is None or not self._take_listing(saved):
                self._snapshot = path

    def _take_listing(self, tools: list[dict[str, Any]]) -> bool:
        """List these tools (a snapshot's or the early answers'); False if they do not validate."""
        try:
            self._listing = [MCPTool.model_validate(tool) for tool in tools]
        except ValidationError:
            return False
        return True

    async def _initialized(self, _ctx: Any, _params: NotificationParams) -> None:
        prepare, self._prepare_when_initialized = self._prepare_when_initialized, False
        if prepare or self._on_initialized is not None:
            self._start_background(lambda: self._start_up(prepare), "pwc-start-up")

    def _start_up(self, prepare: bool) -> None:
        """The work `prepare_after_initialize` describes, or (unprepared) the warm-up alone."""
        if prepare:
            self._prepare()
        if self._on_initialized is not None:
            self._on_initialized()
        self._prepare_rest(prepare)

    def _prepare_rest(self, prepare: bool) -> None:
        """The resource templates and prompts, the listed tools not yet registered, then
        `then()`: what a client's first call after its first look would otherwise wait for."""
        if prepare:
            try:
                self.ensure_templates()
                for tool in self._listing or ():  # one at a time: a call waits for one at most
                    with self._calls_changed:
                        self._calls_changed.wait_for(self._no_call_running, CALLS_FIRST_SECONDS)
                    self.ensure_tools(tool.name)
            except Exception as exc:  # the first request for one tries again
                logger.debug("registering templates or tools failed: %s", type(exc).__name__)
        if self._then is not None:
            self._then()

    def _load_bindings(self) -> None:
        if not self._specs:
            from pwc_local.server.bindings import BY_NAME

            self._specs = BY_NAME

    def ensure_tools(self, name: str | None = None) -> None:
        """Load the bindings and register tool `name` with the SDK, once.

        Without a `name`, or without a listing to say which tools are served, every
        tool is registered. A name the listing leaves out is not registered: calling
        it is an unknown tool.
        """
        if self._tools_ready or name in self.tool_names:
            return
        with self._registering:
            if self._tools_ready or name in self.tool_names:
                return
            self._load_bindings()
            register = self._register_tools
            if name is not None and self._listing is not None:
                if register is not None and any(tool.name == name for tool in self._listing):
                    register(self, (name,))
                return
            if register is not None:
                register(self, None)
                self._register_tools = None
            self._tools_ready = True

    def is_local_tool(self, name: str) -> bool:
        """Whether tool `name` answers from local data only (never waits on the catalog).

        The transport runs such calls in a lane of their own (`server/admission.py`).
        Before the bindings are loaded every tool counts as one that may wait.
        """
        spec = self._specs.get(name)
        return spec is not None and not CATALOG_NEEDS & set(spec.needs)

    def ensure_templates(self) -> None:
        """Register the resource templates and prompts once; later calls return at once."""
        if self._register_templates is None:
            return
        with self._registering_templates:
            if self._register_templates is not None:
                self._register_templates(self)
                self._register_templates = None

    async def list_resources(self) -> list[MCPResource]:
        self.ensure_templates()
        return await super().list_resources()

    async def list_resource_templates(self) -> list[MCPResourceTemplate]:
        self.ensure_templates()
        return await super().list_resource_templates()

    async def list_prompts(self) -> list[MCPPrompt]:
        self.ensure_templates()
        return await super().list_prompts()

    async def list_tools(self) -> list[MCPTool]:
        """The listing, built once: compact output schemas, input schemas without titles."""
        if self._listing is None:
            self._load_saved_listing()
        if self._listing is None:
            from pwc_local.server.listing import output_schema, save_snapshot

            self.ensure_tools()
            listing = []
            for tool in await super().list_tools():
                # pydantic titles every parameter after its own name ("page" -> "Page");
                # the listing is context every session pays for, so leave that out.
                update: dict[str, Any] = {"input_schema": _without_titles(tool.input_schema)}
                model = self._output_models.get(tool.name)
                if model is not None:
                    update["output_schema"] = output_schema(model, self.versioned)
                listing.append(tool.model_copy(update=update))
            self._listing = listing
            if self._snapshot is not None:
                tools = [
                    t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listing
                ]
                snapshot = self._snapshot
                self._start_background(lambda: save_snapshot(snapshot, tools), "pwc-snapshot")
                self._snapshot = None
        return list(self._listing)

    def _no_call_running(self) -> bool:
        return self._calls_running == 0

    def _count_call(self, change: int) -> None:
        with self._calls_changed:
            self._calls_running += change
            self._calls_changed.notify_all()

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> CallToolResult | InputRequiredResult:
        self._count_call(1)
        try:
            return await self._call_tool(name, arguments, context)
        finally:
            self._count_call(-1)

    async def _call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None
    ) -> CallToolResult | InputRequiredResult:
        self.ensure_tools(name)
        if name not in self.tool_names:
            raise ToolError(unknown_tool_message(name))
        spec = self._specs.get(name)  # tools added outside the table (tests) have no references
        known = [
            field.alias or key
            for key, field in sdk.argument_fields(sdk.registered_tool(self, name)).items()
        ]
        if unknown := set(arguments) - set(known):
            # The SDK would drop them silently, and the caller believe they applied.
            message = unknown_arguments_message(unknown, known)
            raise ToolError(f"Error executing tool {name}: {message}")
        arguments = lenient_arguments(arguments, spec.references if spec else frozenset())
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            # A crash outside the tool body (say, its result failed output validation);
            # tool bodies map their own failures. Logged here, without arguments.
            message = error_message(exc.__cause__ or exc)
            raise ToolError(f"Error executing tool {name}: {message}") from None
        except ToolError as exc:
            # The SDK raises ToolError from a ValidationError when the arguments do not
            # fit the input schema; anything a tool raised is already `code: sentence`.
            if isinstance(exc.__cause__, ValidationError):
                message = validation_message(exc.__cause__)
                raise ToolError(f"Error executing tool {name}: {message}") from None
            raise

    async def read_resource(
        self, uri: AnyUrl | str, context: Context | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        """The SDK's read, with its code-less "Unknown resource" refusal given a code."""
        self.ensure_templates()
        try:
            return await super().read_resource(uri, context)
        except ResourceNotFoundError:
            from pwc_local.server.resources import UNKNOWN_RESOURCE

            # Only the SDK's template matching raises it; our templates answer MCPError.
            raise MCPError(INVALID_PARAMS, UNKNOWN_RESOURCE) from None

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context | None = None
    ) -> GetPromptResult | InputRequiredResult:
        """The rendered prompt, once its name and argument names are known to fit."""
        prompt = next((p for p in await self.list_prompts() if p.name == name), None)
        if prompt is None:
            raise MCPError(INVALID_PARAMS, unknown_prompt_message(name))
        expected = {argument.name for argument in prompt.arguments or []}
        required = {argument.name for argument in prompt.arguments or [] if argument.required}
        given = set(arguments or {})
        if not required <= given <= expected:
            raise MCPError(INVALID_PARAMS, prompt_arguments_message(name, expected))
        return await super().get_prompt(name, arguments, context)


def _returning_plain_result(fn: Callable[..., Any]) -> Callable[..., Any] | None:
    """A copy of function `fn` whose return annotation is plain `CallToolResult`, if it is one."""
    if not isinstance(fn, types.FunctionType):
        return None
    copy = types.FunctionType(
        fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
    )
    copy.__dict__.update(fn.__dict__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    copy.__doc__ = fn.__doc__
    copy.__module__ = fn.__module__
    copy.__annotations__ = {**fn.__annotations__, "return": CallToolResult}
    signature = fn.__dict__.get("__signature__")
    if isinstance(signature, inspect.Signature):
        copy.__signature__ = signature.replace(  # type: ignore[attr-defined]
            return_annotation=CallToolResult
        )
    return copy


def _without_titles(schema: dict[str, Any]) -> dict[str, Any]:
    """An input schema without the generated `title` of the object and its properties."""
    trimmed = {key: value for key, value in schema.items() if key != "title"}
    properties = schema.get("properties")
    if isinstance(properties, dict):
        trimmed["properties"] = {
            name: {key: value for key, value in spec.items() if key != "title"}
            if isinstance(spec, dict)
            else spec
            for name, spec in properties.items()
        }
    return trimmed


CLOSE_BUDGET = 10.0  # seconds the closing of the runtime may take at shutdown, at most


def _lifespan(
    runtime: LazyRuntime,
) -> Callable[[MCPServer], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[None]:
        import anyio

        try:
            yield None
        finally:
            # The session ends by cancellation (end of input, SIGTERM): unshielded, the
            # first await would end the closing too, and the watch list would keep the
            # claims of a look whose pages nobody can ask for now for 5 minutes.
            with anyio.move_on_after(CLOSE_BUDGET, shield=True):
                await runtime.aclose()

    return lifespan


class _DeferredTools:
    """The server's `CatalogTools`, made (and the tool machinery imported) on first use.

    The resource templates hold this from start-up; the tools get `get()` when they
    register, after `initialize`. A race between the two makes two interchangeable
    instances over the same runtime, which is harmless.
    """

    def __init__(self, runtime: LazyRuntime) -> None:
        self._runtime = runtime
        self._tools: CatalogTools | None = None

    def get(self) -> CatalogTools:
        if self._tools is None:
            from pwc_local.server.tools import CatalogTools

            self._tools = CatalogTools(self._runtime)
        return self._tools

    async def call(
        self, name: str, /, *, given: Mapping[str, Any] | None = None, **arguments: Any
    ) -> CallToolResult:
        return await self.get().call(name, given=given, **arguments)


def _tool_registration(
    tools: _DeferredTools, settings: Settings
) -> Callable[[MCPServer, Collection[str] | None], None]:
    def register(server: MCPServer, names: Collection[str] | None) -> None:
        from pwc_local.server.tools import register_tools

        register_tools(server, tools.get(), settings, names)

    return register


def _template_registration(
    tools: _DeferredTools, settings: Settings
) -> Callable[[MCPServer], None]:
    def register(server: MCPServer) -> None:
        from pwc_local.server.prompts import register_prompts
        from pwc_local.server.resources import register_resources

        register_resources(server, tools)
        register_prompts(server, settings.tool_selected)
        if settings.profile == "compact":  # the hosted profile stays the hosted server's
            from pwc_local.server.views import register_view

            register_view(server)

    return register


def build_server(settings: Settings, runtime: LazyRuntime | None = None) -> PwcServer:
    """The complete server for `settings`; `runtime` lets tests supply their own services."""
    runtime = runtime if runtime is not None else LazyRuntime(settings)
    tools = _DeferredTools(runtime)
    server = PwcServer(
        register_tools=_tool_registration(tools, settings),
        register_templates=_template_registration(tools, settings),
        on_initialized=runtime.build_now,
        versioned=settings.profile == "hosted",
        name=text.SERVER_NAME,
        title=text.SERVER_TITLE,
        description=text.SERVER_DESCRIPTION,
        instructions=text.INSTRUCTIONS
        if settings.profile == "hosted"
        else text.COMPACT_INSTRUCTIONS,
        website_url=text.WEBSITE_URL,
        version=__version__,
        lifespan=_lifespan(runtime),
        cache_hints=CACHE_HINTS,
        # Tools, templates and prompts never change while serving, and no resource is
        # live: advertise neither list changes nor subscriptions.
        subscriptions=False,
        log_level=settings.log_level.upper(),
    )
    register_completions(server, runtime)
    return server


def preparation(settings: Settings) -> dict[str, Any]:
    """What `PwcServer.prepare_after_initialize` and `prepare_now` take for `settings`.

    The cache directory may need platformdirs: looked up in the preparing thread. When
    everything is ready, what start-up made is frozen out of the collector's way.
    """
    return {
        "snapshot_dir": settings.resolved_cache_dir,
        # A snapshot per tool selection and profile: each lists other tools or schemas.
        "tools": settings.tools if settings.profile == "compact" else f"{settings.tools}/hosted",
        "then": gc.freeze,
    }


def run_stdio(
    settings: Settings,
    server: PwcServer | None = None,
    *,
    claimed: Sequence[ClaimedDescriptor] = (),
    handover: Handover | None = None,
) -> int:
    """Serve MCP on stdin/stdout until the client closes stdin; the exit status.

    `server`, `claimed` and `handover` come from the early path (`server/launch.py`):
    the server it built and prepared, the pipes it claimed, what it read and did not
    answer.
    Requests still running when stdin closes may finish within
    `stdio.DEFAULT_DRAIN_TIMEOUT` (1.5 s) before the session ends.
    """
    from pwc_local.server import stdio

    if server is None:
        server = build_server(settings)
        server.prepare_after_initialize(**preparation(settings))
    # Start-up is over: what it made lives as long as the process, so the garbage
    # collector (held off while the modules loaded, see `launch.serve`) leaves it be.
    gc.freeze()
    gc.enable()
    try:
        return stdio.run(
            server, local_tool=server.is_local_tool, claimed=claimed, handover=handover
        )
    finally:
        server.join_background(timeout=10)
