"""The watch list's tools: what changed since the last look (local; see `bindings`)."""

from __future__ import annotations

from pwc_local.present import watch as shown_watch
from pwc_local.present.record import Presenter
from pwc_local.present.render import of_model
from pwc_local.queries import looks, watch
from pwc_local.server.bindings import ToolSpec, bind, group_tools

TOOLS: tuple[ToolSpec, ...] = (
    bind(
        "watch",
        query=watch.watch,
        needs=("live", "watchlist"),
        output=shown_watch.WatchListResult,
        project=shown_watch.watch_list_result,
        text=(lambda call: shown_watch.watch_text(call.model, call.arguments),),
    ),
    bind(
        "whats_new",
        query=looks.whats_new,
        needs=("live", "watchlist", "timeout"),
        output=shown_watch.WhatsNewResult,
        project=shown_watch.whats_new_result,
        text=(of_model(shown_watch.whats_new_text),),
        compact=Presenter(
            shown_watch.WhatsNew, shown_watch.whats_new_record, shown_watch.whats_new_record_text
        ),
    ),
)

BY_NAME = group_tools("watch", TOOLS)
