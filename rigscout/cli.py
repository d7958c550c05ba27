"""The ``rigscout`` command line: a thin layer over the library.

Each command reads ``Settings`` once, opens the store, calls one library function and turns
rigscout's errors into a one-line message and an exit code (0 ok, 1 some searches or
channels failed, 2 configuration or database error).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from decimal import Decimal
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import httpx
from rich.console import Console
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from db.engine import open_engine
from db.migrate import upgrade
from rigscout import __version__
from rigscout.cli_report import report
from rigscout.config import Settings, load_settings, resolve_config_path
from rigscout.errors import ConfigError, RigscoutError, StoreError

if TYPE_CHECKING:
    from sqlalchemy import Engine

F = TypeVar("F", bound=Callable[..., Any])
log = logging.getLogger("rigscout")
STARTER = Path(__file__).with_name("starter.toml")


@dataclass
class AppContext:
    config_option: str | None
    console: Console

    def settings(self) -> Settings:
        path = resolve_config_path(self.config_option, os.environ, Path.cwd())
        if path.exists():
            return load_settings(path, os.environ)
        if self.config_option or os.environ.get("RIGSCOUT_CONFIG"):
            raise ConfigError(f"config file {path} does not exist (run `rigscout init`)")
        # No config yet: the starter searches, with the default database location.
        starter = load_settings(STARTER, os.environ)
        defaults = load_settings(None, os.environ)
        click.echo(
            f"No {path.name} here: using the starter searches and "
            f"{_safe_url(defaults.database_url)} (`rigscout init` writes a config you can edit).",
            err=True,
        )
        return replace(starter, database_url=defaults.database_url, config_path=None)


def handle_errors(func: F) -> F:
    """Turn rigscout errors into one clear line and the documented exit code."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (ConfigError, StoreError) as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(2)
        except DBAPIError as exc:  # the database went away in the middle of a command
            reason = str(exc.orig or exc).strip().splitlines()[0]
            click.echo(f"Error: database error: {reason}", err=True)
            sys.exit(2)
        except RigscoutError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


def open_store(settings: Settings) -> Engine:
    engine = open_engine(settings.database_url)
    upgrade(engine)
    return engine


@click.group()
@click.option(
    "--config",
    "config",
    envvar=None,
    help="Config file (default: $RIGSCOUT_CONFIG or ./rigscout.toml).",
)
@click.option("-v", "--verbose", count=True, help="More logging (-v info, -vv debug).")
@click.version_option(__version__, prog_name="rigscout")
@click.pass_context
def cli(ctx: click.Context, config: str | None, verbose: int) -> None:
    """rigscout finds used GPU and GPU-server deals on eBay and ranks them per landed dollar.

    Example:

        rigscout init && rigscout run --offline fixtures/demo
    """
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    ctx.obj = AppContext(config, Console(stderr=False))


pass_app = click.make_pass_decorator(AppContext)
cli.add_command(report)


@cli.command()
@click.option("--force", is_flag=True, help="Overwrite an existing config file.")
@pass_app
@handle_errors
def init(app: AppContext, force: bool) -> None:
    """Write a commented starter config and create the database.

    Example:

        rigscout init && $EDITOR rigscout.toml
    """
    path = resolve_config_path(app.config_option, os.environ, Path.cwd())
    if path.exists() and not force:
        click.echo(f"{path} exists; keeping it (use --force to overwrite).")
    else:
        path.write_text(STARTER.read_text(encoding="utf-8"), encoding="utf-8")
        click.echo(f"Wrote {path} with {len(load_settings(path, {}).searches)} saved searches.")
    settings = app.settings()
    open_store(settings).dispose()
    click.echo(f"Database ready: {_safe_url(settings.database_url)}")


@cli.group()
def db() -> None:
    """Database maintenance: apply the schema migrations."""


@db.command("upgrade")
@pass_app
@handle_errors
def db_upgrade(app: AppContext) -> None:
    """Apply the database migrations (run and init do this on their own).

    Example:

        rigscout db upgrade
    """
    from db.migrate import current_revision

    engine = open_store(app.settings())
    click.echo(f"Database at revision {current_revision(engine)}.")
    engine.dispose()


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def search_options(func: F) -> F:
    func = click.option(
        "--search",
        "search_names",
        multiple=True,
        metavar="NAME",
        help="Only these saved searches (repeatable).",
    )(func)
    return click.option(
        "--offline",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        help="Replay saved pages from DIR/<search>/<mode>-p<N>.html instead of eBay.",
    )(func)


@cli.command()
@search_options
@click.option(
    "--dry-run", is_flag=True, help="Show what would be alerted; send and record nothing."
)
@click.option("--no-alerts", is_flag=True, help="Skip the alert step.")
@click.option("--profile", help="Ranking profile: llm-inference, training or capacity.")
@click.option("--wait", is_flag=True, help="Wait for a run already in progress instead of exiting.")
@click.option(
    "--worker",
    is_flag=True,
    help="Share today's searches with other workers on the same PostgreSQL database.",
)
@click.option("--limit", default=15, show_default=True, help="Deals shown in the summary.")
@pass_app
@handle_errors
def run(
    app: AppContext,
    offline: Path | None,
    search_names: tuple[str, ...],
    dry_run: bool,
    no_alerts: bool,
    profile: str | None,
    wait: bool,
    worker: bool,
    limit: int,
) -> None:
    """Run the daily job: collect, normalize, save, rank, alert, summarize.

    Exit code 0 when all went well, 1 when some searches or alert channels failed,
    2 on a configuration or database error.

    Example:

        rigscout run --offline fixtures/demo
    """
    from rigscout.jobs import run_job

    settings = app.settings()
    report = run_job(
        settings,
        console=app.console,
        offline=offline,
        search_names=search_names,
        profile=profile,
        alert=not no_alerts,
        dry_run=dry_run,
        wait=wait,
        limit=limit,
        worker=worker,
    )
    sys.exit(report.exit_code)


@cli.command()
@search_options
@pass_app
@handle_errors
def collect(app: AppContext, offline: Path | None, search_names: tuple[str, ...]) -> None:
    """Collect and store listings only (no ranking, no alerts).

    Example:

        rigscout collect --search v100-sxm2
    """
    from rigscout.jobs import run_job

    report = run_job(
        app.settings(),
        console=app.console,
        offline=offline,
        search_names=search_names,
        profile=None,
        alert=False,
        dry_run=False,
        wait=False,
        limit=0,
    )
    sys.exit(report.exit_code)


@cli.command()
@click.option("--profile", help="llm-inference, training or capacity (default from config).")
@click.option("--sku", help="Only this catalog SKU.")
@click.option("--category", type=click.Choice(["gpu", "server", "board"]))
@click.option("--max-price", type=Decimal, help="Maximum landed unit price.")
@click.option("--limit", default=20, show_default=True)
@click.option(
    "--buying",
    type=click.Choice(["all", "buy_it_now", "auction"]),
    default="all",
    show_default=True,
    help="buy_it_now: fixed price and best offer. Auctions rank at their predicted end.",
)
@click.option("--include-parts", is_flag=True, help="Also list accessories and for-parts listings.")
@click.option(
    "--include-flagged",
    is_flag=True,
    help="Also list the listings a risk flag kept out, with their flags.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON list instead of a table.")
@pass_app
@handle_errors
def rank(
    app: AppContext,
    profile: str | None,
    sku: str | None,
    category: str | None,
    max_price: Decimal | None,
    limit: int,
    buying: str,
    include_parts: bool,
    include_flagged: bool,
    as_json: bool,
) -> None:
    """Show the top deals among stored listings.

    Example:

        rigscout rank --profile training --category gpu --limit 10
    """
    from ranking.rank import RankFilters
    from rigscout.deals import load_ranking
    from rigscout.jobs import deal_json, load_skus, print_deals
    from rigscout.wiring import utcnow

    settings = app.settings()
    engine = open_store(settings)
    filters = RankFilters(
        profile=profile or settings.rank.profile,
        sku=sku,
        category=category,
        max_price=max_price,
        limit=limit,
        buying=buying,
    )
    with Session(engine) as session:
        ranking = load_ranking(session, load_skus(), settings.rank, now=utcnow(), filters=filters)
    flagged = ranking.flagged if include_flagged else ()
    parts = ranking.parts if include_parts else ()
    if as_json:
        click.echo(json.dumps([deal_json(d) for d in (*ranking.deals, *flagged, *parts)], indent=2))
        return
    print_deals(app.console, ranking.deals)
    if include_flagged:
        print_deals(app.console, flagged, title="Kept out by a risk flag (see each reason)")
    if include_parts:
        print_deals(app.console, parts, title="Parts and accessories (never deals)")
    skipped = ", ".join(
        f"{n} {reason.replace('_', ' ')}" for reason, n in ranking.skipped.items() if n
    )
    if skipped:
        click.echo(f"Not ranked: {skipped}.")


@cli.command()
@pass_app
@handle_errors
def normalize(app: AppContext) -> None:
    """Map titles (one per line on stdin) to catalog SKUs: one JSON object per line.

    Keys: title, sku, category, kind, quantity, includes, confidence.

    Example:

        echo "Lot of 2 NVIDIA Tesla V100 SXM2 16GB" | rigscout normalize
    """
    from ranking.catalog import load_catalog
    from ranking.normalize import Normalizer

    normalizer = Normalizer(load_catalog())
    for line in sys.stdin:
        title = line.rstrip("\r\n")
        sys.stdout.write(
            json.dumps(normalizer.normalize(title).as_json(), ensure_ascii=False) + "\n"
        )


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@handle_errors
def parse(file: Path) -> None:
    """Parse a saved eBay search page: one JSON object per listing.

    Keys: item_id, title, price, price_max, currency, shipping, buying_format, bids,
    sold_date, condition, url (and more after them).

    Example:

        rigscout parse saved-search.html | jq .price
    """
    from scraper.parse import listing_to_contract, parse_search_page

    page = parse_search_page(file.read_text(encoding="utf-8", errors="replace"), url=str(file))
    for listing in page.listings:
        click.echo(json.dumps(listing_to_contract(listing), ensure_ascii=False))


@cli.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="The whole catalog as a JSON list.")
@click.pass_context
def catalog(ctx: click.Context, as_json: bool) -> None:
    """Show the hardware catalog (SKUs and specs).

    Example:

        rigscout catalog --json | jq '.[] | select(.category=="gpu") | .sku'
    """
    if ctx.invoked_subcommand is not None:
        return
    from ranking.catalog import load_catalog

    entries = load_catalog().as_json()
    if as_json:
        click.echo(json.dumps(entries, indent=2))
        return
    for entry in entries:
        click.echo(f"{entry['sku']:<34} {entry['category']:<7} {entry['name']}")


@catalog.command("unmatched")
@click.option("--limit", default=50, show_default=True)
@pass_app
@handle_errors
def catalog_unmatched(app: AppContext, limit: int) -> None:
    """Stored titles the normalizer could not place, most frequent first.

    Example:

        rigscout catalog unmatched --limit 20
    """
    from db.store import load_unmatched_titles

    engine = open_store(app.settings())
    with Session(engine) as session:
        for title, count in load_unmatched_titles(session, limit=limit):
            click.echo(f"{count:>5}  {title}")


@cli.command("import")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@pass_app
@handle_errors
def import_(app: AppContext, files: tuple[Path, ...]) -> None:
    """Import sold listings from saved sold search pages (.html) or Terapeak CSV exports (.csv).

    Example:

        rigscout import sold-v100-page1.html terapeak-p40.csv
    """
    from rigscout.jobs import import_files

    engine = open_store(app.settings())
    for path, counts in import_files(engine, files):
        click.echo(f"{path}: {counts.seen} sold listings, {counts.new_sales} new sales")


def export_options(func: F) -> F:
    options: list[Callable[[F], F]] = [
        click.option("--sku", "skus", multiple=True, help="Only this SKU (repeatable)."),
        click.option("--category", type=click.Choice(["gpu", "server", "board"])),
        click.option("--since", type=click.DateTime(["%Y-%m-%d"]), help="From this UTC day."),
        click.option(
            "--until", type=click.DateTime(["%Y-%m-%d"]), help="To this UTC day, inclusive."
        ),
        click.option(
            "-o",
            "--output",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Write to this file instead of stdout.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@contextmanager
def _output(path: Path | None) -> Iterator[Any]:
    if path is None:
        yield sys.stdout
        return
    with path.open("w", encoding="utf-8", newline="") as handle:
        yield handle


def _export_filter(skus: tuple[str, ...], category: str | None, since: Any, until: Any) -> Any:
    from rigscout.export import ExportFilter

    return ExportFilter(
        skus=skus,
        category=category,
        since=since.date() if since else None,
        until=until.date() if until else None,
    )


@cli.group(invoke_without_command=True)
@click.pass_context
def export(ctx: click.Context) -> None:
    """Export price history as CSV (`export prices`, the default, or `export listings`).

    Example:

        rigscout export prices --sku nvidia-tesla-p40 --freq week -o p40.csv
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(export_prices_cmd)


@export.command("prices")
@export_options
@click.option(
    "--freq", type=click.Choice(["day", "week", "month"]), default="day", show_default=True
)
@pass_app
@handle_errors
def export_prices_cmd(
    app: AppContext,
    skus: tuple[str, ...] = (),
    category: str | None = None,
    since: Any = None,
    until: Any = None,
    output: Path | None = None,
    freq: str = "day",
) -> None:
    """Landed unit price per SKU per period: count, min, median, max; sold vs active.

    Example:

        rigscout export prices --category gpu --since 2026-10-01 --freq week
    """
    from rigscout.export import export_prices

    engine = open_store(app.settings())
    with _output(output) as out:
        rows = export_prices(engine, out, _export_filter(skus, category, since, until), freq=freq)
    if output:
        click.echo(f"Wrote {rows} rows to {output}", err=True)


@export.command("listings")
@export_options
@pass_app
@handle_errors
def export_listings_cmd(
    app: AppContext,
    skus: tuple[str, ...],
    category: str | None,
    since: Any,
    until: Any,
    output: Path | None,
) -> None:
    """Every price observation with its listing, as raw CSV rows.

    Example:

        rigscout export listings --sku nvidia-rtx-3090 -o 3090.csv
    """
    from rigscout.export import export_listings

    engine = open_store(app.settings())
    with _output(output) as out:
        rows = export_listings(engine, out, _export_filter(skus, category, since, until))
    if output:
        click.echo(f"Wrote {rows} rows to {output}", err=True)


@cli.group()
def chart() -> None:
    """PNG charts of price history and of performance per dollar."""


@chart.command("history")
@click.argument("skus", nargs=-1, required=True)
@click.option("--since", type=click.DateTime(["%Y-%m-%d"]), help="From this UTC day.")
@click.option(
    "-o",
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(),
    show_default=True,
)
@pass_app
@handle_errors
def chart_history(app: AppContext, skus: tuple[str, ...], since: Any, output_dir: Path) -> None:
    """Sold prices (points), their rolling median (line) and the active-listing range, per SKU.

    Example:

        rigscout chart history nvidia-tesla-p40 nvidia-rtx-3090 -o charts/
    """
    from rigscout.charts import load_history, render_history_chart
    from rigscout.jobs import load_skus

    catalog = load_skus()
    unknown = [s for s in skus if s not in catalog]
    if unknown:
        raise ConfigError(f"not catalog SKUs: {', '.join(unknown)} (see `rigscout catalog`)")
    engine = open_store(app.settings())
    output_dir.mkdir(parents=True, exist_ok=True)
    for sku in skus:
        history = load_history(engine, sku, since=since.date() if since else None)
        path = output_dir / f"history-{sku}.png"
        render_history_chart(history, title=f"{catalog[sku].name}: landed price per unit").savefig(
            path
        )
        click.echo(f"{path}: {len(history)} price points")


@chart.command("value")
@click.option("--profile", help="llm-inference, training or capacity (default from config).")
@click.option(
    "--category", type=click.Choice(["gpu", "server", "board"]), default="gpu", show_default=True
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("value.png"),
    show_default=True,
)
@pass_app
@handle_errors
def chart_value(app: AppContext, profile: str | None, category: str, output: Path) -> None:
    """Performance per dollar across SKUs at today's market price (sold median, else active).

    Example:

        rigscout chart value --profile training -o value-training.png
    """
    from rigscout.charts import render_value_chart, score_value_points
    from rigscout.deals import load_ranking
    from rigscout.jobs import load_skus
    from rigscout.wiring import utcnow

    settings = app.settings()
    engine = open_store(settings)
    with Session(engine) as session:
        baselines = load_ranking(session, load_skus(), settings.rank, now=utcnow()).markets
    points, metric = score_value_points(
        load_skus(), baselines, profile or settings.rank.profile, category=category
    )
    if not points:
        raise ConfigError("no SKU has a market price yet: run `rigscout run` first")
    render_value_chart(points, metric=metric, currency=settings.rank.currency).savefig(output)
    click.echo(f"{output}: {metric} per 1,000 {settings.rank.currency}, {len(points)} SKUs")


@cli.group()
def alerts() -> None:
    """Alert channels: check that each configured channel delivers."""


@alerts.command("test")
@pass_app
@handle_errors
def alerts_test(app: AppContext) -> None:
    """Send a test message to every configured channel.

    Example:

        RIGSCOUT_DISCORD_WEBHOOK=https://discord.com/api/webhooks/... rigscout alerts test
    """
    from alerts.dispatch import build_notifiers, send_test_message

    settings = app.settings()
    if not settings.alerts.channels:
        raise ConfigError("no alert channels configured ([alerts.channels.*] in the config file)")
    failed = 0
    with httpx.Client(timeout=30) as client:
        for name, notifier in build_notifiers(settings.alerts.channels, client=client).items():
            try:
                send_test_message(notifier)
                click.echo(f"{name}: sent")
            except RigscoutError as exc:
                failed += 1
                click.echo(f"{name}: FAILED: {exc}", err=True)
    sys.exit(1 if failed else 0)


@cli.command()
@click.option("--limit", default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@pass_app
@handle_errors
def runs(app: AppContext, limit: int, as_json: bool) -> None:
    """List recent runs with their counts, failures and duration.

    Example:

        rigscout runs --limit 5
    """
    from db.runs import load_runs
    from rigscout.render import render_runs_table

    engine = open_store(app.settings())
    with Session(engine) as session:
        recent = load_runs(session, limit=limit)
    if as_json:
        click.echo(json.dumps([asdict(r) for r in recent], indent=2, default=str))
    else:
        app.console.print(render_runs_table(recent))


@cli.command()
@click.option(
    "--offline",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Replay saved pages instead of eBay (for trying the daemon out).",
)
@click.option("--run-now", is_flag=True, help="Also run once right away.")
@pass_app
@handle_errors
def schedule(app: AppContext, offline: Path | None, run_now: bool) -> None:
    """Run the daily job as a daemon on the cron trigger of [schedule] (default 06:00 daily).

    Stops cleanly on SIGTERM or Ctrl-C. For cron instead, see the README.

    Example:

        rigscout -v schedule
    """
    from rigscout.scheduler import build_scheduler, serve

    settings = app.settings()
    if not logging.getLogger().isEnabledFor(logging.INFO):
        logging.getLogger("rigscout").setLevel(logging.INFO)
    engine = open_store(settings)
    serve(
        build_scheduler(
            settings,
            engine,
            config_path=settings.config_path,
            offline=offline,
            run_now=run_now,
        )
    )
