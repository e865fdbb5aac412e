"""The command line: `kernlint PATH...` (= `kernlint check PATH...`),
`kernlint rule CODE`, `kernlint rules`, `kernlint schema json|advice` and
`kernlint verify`."""

from __future__ import annotations

import errno
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import click
from kernlint.registry import all_rules, rule_by_code_or_name
from kernlint.reporters import REPORTERS, render
from kernlint.runner import EXIT_ERROR, run
from kernlint.settings import SETTINGS, Setting, SettingError
from kernlint.version import __version__


class DefaultToCheck(click.Group):
    """`kernlint PATH` means `kernlint check PATH`; a path that shares a
    subcommand's name needs the explicit form."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (
            args[0] not in self.commands
            and args[0] not in LAZY_COMMANDS
            and args[0] not in ("--help", "-h", "--version")
        ):
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for name in LAZY_COMMANDS:
            _register_lazy(name)
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str):
        _register_lazy(cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The group's options, then `check`'s (what `kernlint PATH` takes;
        issue 28: they were only under `kernlint check --help`), then the
        commands."""
        click.Command.format_options(self, ctx, formatter)
        check = self.get_command(ctx, "check")
        assert check is not None
        check_ctx = click.Context(check, info_name="check", parent=ctx)
        records = [
            record
            for param in check.get_params(check_ctx)
            if isinstance(param, click.Option)
            and param.name != "help"
            and (record := param.get_help_record(check_ctx)) is not None
        ]
        with formatter.section("Lint options (`kernlint [check] [OPTIONS] [PATHS]...`)"):
            formatter.write_dl(records)
        self.format_commands(ctx, formatter)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name, command, rest = super().resolve_command(ctx, args)
        _stage["doing"] = f"running `kernlint {name}`"
        return name, command, rest

    def invoke(self, ctx: click.Context):
        """No traceback reaches the user: an unexpected exception becomes one
        line on stderr naming what kernlint was doing, and exit code 2."""
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Abort, click.exceptions.Exit):
            raise
        except OSError as error:
            if error.errno == errno.EPIPE:  # `kernlint ... | head`: click handles it
                raise
            _internal_error_exit(error)
        except Exception as error:  # noqa: BLE001 - the last line of defence
            _internal_error_exit(error)


# What the `check` command is doing, for the one-line internal error message.
_stage = {"doing": "starting"}


def _internal_error_exit(error: BaseException) -> None:
    import traceback

    from kernlint.engine import REPORT_URL

    frames = traceback.extract_tb(error.__traceback__)
    at = f" at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
    message = str(error).splitlines()[0] if str(error) else ""
    click.echo(
        f"kernlint: internal error while {_stage['doing']}: {type(error).__name__}: {message}{at}; "
        f"this is a bug in kernlint, please report it at {REPORT_URL} with the command and the files it ran on",
        err=True,
    )
    sys.exit(EXIT_ERROR)


@click.group(cls=DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kernlint")
def main() -> None:
    """kernlint: find performance anti-patterns in Triton kernels and the
    PyTorch code that launches them.

    \b
    kernlint PATH...            lint files and directories (same as `kernlint check`)
    kernlint --format advice F  the architect's verdict for a file
    kernlint rule KL001         a rule's documentation
    kernlint verify             measure the reference-fix library on a GPU
    kernlint verify FILE        run FILE's ModelNew against Model (EXECUTES FILE)
    kernlint server             the Language Server, for editors (over stdio)
    """


class SettingValue(click.ParamType):
    """A setting's flag text, parsed and validated as its Kind says (the
    same check as the config file's, so both reject the same values)."""

    def __init__(self, setting: Setting) -> None:
        self.setting = setting
        self.name = setting.kind.description

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> object:
        if not isinstance(value, str):
            return value
        assert self.setting.kind.from_flag is not None, self.setting.key
        try:
            return self.setting.kind.from_flag(value)
        except SettingError as error:
            self.fail(error.problem, param, ctx)


def setting_options(command: Callable[..., None]) -> Callable[..., None]:
    """One click option per setting that has a flag (kernlint.settings.SETTINGS),
    passed to the command under the setting's attribute name."""
    for setting in reversed(SETTINGS):
        if setting.flag is None:
            continue
        command = click.option(
            setting.flag,
            setting.attribute,
            cls=SettingOption,
            setting=setting,
            type=SettingValue(setting),
            multiple=setting.kind.multiple,
            default=None,
            metavar=setting.kind.metavar,
        )(command)
    return command


class SettingOption(click.Option):
    """A setting's flag. Its help line is written when help is shown, not
    when the command is built: the line names rule codes, and finding them
    imports every rule and the model, which a run answered from the cache
    (or `--version`) does not need (issue 14)."""

    def __init__(self, *args: Any, setting: Setting, **kwargs: Any) -> None:
        self.setting = setting
        super().__init__(*args, **kwargs)

    @property
    def help(self) -> str:
        return self.setting.help_line()

    @help.setter
    def help(self, value: str | None) -> None:
        """click assigns the `help=` given (none): the setting's line stands."""


def _flag_values(given: dict[str, object]) -> dict[str, object]:
    """Settings' field name -> the flag's value, None when not given; a
    repeated flag's values are joined."""
    values: dict[str, object] = {}
    for setting in SETTINGS:
        if setting.flag is None:
            continue
        value: Any = given.pop(setting.attribute, None)
        if setting.kind.multiple:
            # A repeated flag gives a tuple of frozensets; none given: ().
            value = frozenset().union(*value) if value else None
        values[setting.attribute] = value
    return values


def _cache_dir(settings) -> str:
    """The cache folder: as configured (relative to the config file's
    folder), else .kernlint_cache beside the config file or here."""
    from kernlint.cache import DEFAULT_DIR

    base = settings.root or os.getcwd()
    return os.path.join(base, settings.cache_dir or DEFAULT_DIR)


@main.command()
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Read settings from this TOML file (default: the nearest pyproject.toml with [tool.kernlint]).",
)
def clean(config_file: str | None) -> None:
    """Delete the result cache (the folder `check` keeps results in)."""
    from kernlint import cache, config

    try:
        config_path = config_file or config.find_config(["."])
        loaded = config.load_config(config_path) if config_path else config.Config()
        folder = _cache_dir(config.resolve(loaded))
        removed = cache.clean(folder)
    except (config.ConfigError, ValueError, OSError) as error:
        click.echo(f"kernlint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(f"Removed {os.path.relpath(folder)}" if removed else f"No cache at {os.path.relpath(folder)}")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--format",
    "output_format",
    type=click.Choice(sorted(REPORTERS)),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--stdin-filename",
    default=None,
    help="Lint stdin, reported as this name (which also picks its config); other paths are ignored, as in ruff.",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule, and nothing else.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary.")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    is_flag=False,
    flag_value="always",
    default=None,
    help="Colour the text output: auto (only on a terminal; the default), always (in a pipe too), never. "
    "`--color` alone is always.",
)
@click.option("--no-color", is_flag=True, help="Same as --color never.")
@click.option(
    "--output-file",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the report to this file instead of stdout.",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Read settings from this TOML file (default: the nearest pyproject.toml with [tool.kernlint]).",
)
@click.option("--show-suppressed", is_flag=True, help="Also list the findings that suppression comments silence.")
@click.option(
    "--report-unused-suppressions", is_flag=True, help="Report suppression comments that silence nothing (KL900)."
)
@click.option("--fix", is_flag=True, help="Apply the safe fixes to the files.")
@click.option(
    "--diff", is_flag=True, help="Print the safe fixes as a unified diff; write nothing (exit 1 if there are any)."
)
@click.option(
    "--force-exclude",
    is_flag=True,
    help="Apply the configured exclude to files named explicitly too (pre-commit passes every file by name).",
)
@click.option("--no-cache", is_flag=True, help="Check every file afresh: neither read nor write the result cache.")
@setting_options
def check(
    paths: tuple[str, ...],
    output_format: str,
    stdin_filename: str | None,
    exit_zero: bool,
    statistics: bool,
    quiet: bool,
    color: str | None,
    no_color: bool,
    output_file: str | None,
    config_file: str | None,
    show_suppressed: bool,
    report_unused_suppressions: bool,
    fix: bool,
    diff: bool,
    force_exclude: bool,
    no_cache: bool,
    **setting_flags: object,
) -> None:
    """Lint PATHS (files, directories, or - for stdin)."""
    from kernlint import config
    from kernlint.cache import ResultCache
    from kernlint.reporters import ReportOptions
    from kernlint.runner import final_exit_code, merge

    if stdin_filename is not None and any(p != "-" for p in paths):
        # As ruff: a --stdin-filename means the file comes from stdin; the
        # paths beside it are named, not linted (issue 28: they used to be
        # linted and stdin ignored).
        for path in paths:
            if path != "-":
                click.echo(
                    f"kernlint: warning: ignoring {path} in favor of standard input (--stdin-filename)", err=True
                )
    targets = ["-"] if stdin_filename is not None else list(paths) or ["."]
    fix_mode = "diff" if diff else "fix" if fix else None
    stdin_fixed_to_stdout = fix_mode == "fix" and "-" in targets
    # The report goes to stderr when fixed stdin takes stdout.
    to_terminal = (sys.stderr if stdin_fixed_to_stdout else sys.stdout).isatty() and output_file is None
    use_color = {"always": True, "never": False}.get("never" if no_color else color or "auto", to_terminal)
    options = ReportOptions(
        show_suppressed=show_suppressed,
        statistics=statistics,
        quiet=quiet,
        color=use_color and output_format == "text",
    )
    try:
        # One config file governs each file: the nearest (config.scopes), or
        # --config's for all of them.
        walk_errors: tuple[str, ...] = ()
        if config_file is not None:
            parts = [config.Scope(config_file, tuple(targets))]
        else:
            parts, walk_errors = config.scopes(targets, stdin_filename)
        scoped = []
        for part in parts:
            loaded = config.load_config(part.config) if part.config else config.Config()
            settings = config.resolve(
                loaded,
                report_unused_suppressions=report_unused_suppressions,
                **_flag_values(dict(setting_flags)),
            )
            scoped.append((part, loaded, settings))
    except config.ConfigError as error:
        click.echo(f"kernlint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    _stage["doing"] = "checking " + ", ".join(targets)
    outcome = merge(
        [
            run(
                list(part.paths),
                settings,
                stdin_filename=stdin_filename,
                exclude=config.exclude_patterns(loaded),
                fix=fix_mode,
                force_exclude=force_exclude,
                options=options,
                cache=None if no_cache else ResultCache(_cache_dir(settings)),
            )
            for part, loaded, settings in scoped
        ],
        walk_errors,
        fix_mode,
        options,
    )
    if not outcome.report.results and not outcome.errors:
        # ruff's words and exit code: a folder without Python files is not
        # an error, but it is never silent (issue 28).
        click.echo("kernlint: warning: No Python files found under the given path(s)", err=True)
    for line in outcome.errors:
        click.echo(f"kernlint: error: {line}", err=True)
    code = final_exit_code(outcome.exit_code, exit_zero)
    if fix_mode == "diff":
        _emit("".join(outcome.diffs), output_file)
        if not quiet:
            noun = "fix" if outcome.fixed == 1 else "fixes"
            click.echo(f"Would apply {outcome.fixed} {noun}." if outcome.fixed else "No fixes to apply.", err=True)
        sys.exit(code)
    _stage["doing"] = f"writing the {output_format} report"
    text = render(output_format, outcome.report)
    if fix_mode == "fix" and outcome.stdin_fixed is not None:
        # Fixed stdin goes to stdout (as an editor integration expects); the
        # report goes to the output file, or stderr.
        sys.stdout.buffer.write(outcome.stdin_fixed)
        sys.stdout.flush()
        if output_file is not None:
            _write_report(output_file, text)
        else:
            click.echo(text, err=True, nl=False, color=options.color or None)
        sys.exit(code)
    if fix_mode == "fix" and outcome.fixed and not quiet:
        noun = "fix" if outcome.fixed == 1 else "fixes"
        click.echo(f"Applied {outcome.fixed} {noun}.", err=True)
    _emit(text, output_file, options.color)
    sys.exit(code)


def _emit(text: str, output_file: str | None, color: bool = False) -> None:
    if output_file is not None:
        _write_report(output_file, text)
    else:
        # click strips colour codes when stdout is not a terminal unless told
        # (issue 28: `--color always` did nothing in a pipe).
        click.echo(text, nl=False, color=color or None)


def _write_report(path: str, text: str) -> None:
    import os
    import tempfile

    try:
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        # Written beside the target and renamed over it, so a CI step never
        # reads a half-written report.
        fd, temporary = tempfile.mkstemp(dir=parent or ".", prefix=f".{os.path.basename(path)}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            os.chmod(temporary, 0o644)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as error:
        click.echo(f"kernlint: error: {path}: cannot write the report: {error.strerror or error}", err=True)
        sys.exit(EXIT_ERROR)


@main.command("rule")
@click.argument("code")
def rule_command(code: str) -> None:
    """Print the documentation of a rule (code or name)."""
    rule = rule_by_code_or_name(code)
    if rule is None:
        click.echo(f"kernlint: error: unknown rule {code!r} (see `kernlint rules`)", err=True)
        sys.exit(EXIT_ERROR)
    from kernlint import claims

    lines = [
        f"# {rule.code} {rule.name}",
        "",
        f"Category: {rule.category.value} · Severity: {rule.severity.value}"
        + (" · Fix: safe autofix" if rule.fixable() else ""),
        "",
        rule.docs(),
        "",
    ]
    if rule.category.is_performance:
        claim = claims.expected_speedup(rule.code) or {}
        lines += ["## Measured speedup", "", str(claim.get("summary", "unmeasured")), ""]
    else:
        lines += ["## Measured speedup", "", claims.claim_label(rule.code, rule.category.value), ""]
    click.echo("\n".join(lines))


@main.command("rules")
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True)
def rules_command(output_format: str) -> None:
    """List every rule."""
    from kernlint import claims

    rules = all_rules()
    labels = {r.code: claims.claim_label(r.code, r.category.value) for r in rules}
    if output_format == "json":
        click.echo(
            json.dumps(
                [
                    {
                        "code": r.code,
                        "name": r.name,
                        "category": r.category.value,
                        "severity": r.severity.value,
                        "summary": r.summary,
                        "fixable": r.fixable(),
                        "claim": labels[r.code],
                    }
                    for r in rules
                ],
                indent=2,
            )
        )
        return
    width = max(len(r.name) for r in rules)
    claim_width = max(len(label) for label in labels.values())
    click.echo(
        f"{'code':<6} {'name':<{width}} {'category':<21} {'severity':<8} {'fix':<3} {'claim':<{claim_width}} summary"
    )
    for r in rules:
        click.echo(
            f"{r.code:<6} {r.name:<{width}} {r.category.value:<21} {r.severity.value:<8} "
            f"{'yes' if r.fixable() else '':<3} {labels[r.code]:<{claim_width}} {r.summary}"
        )


@main.command("server")
def server_command() -> None:
    """Run the Language Server over stdio (for editors; needs `kernlint[server]`)."""
    try:
        from kernlint.server import main as serve
    except ImportError as error:
        click.echo(f"kernlint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    _stage["doing"] = "serving the editor"
    serve()


@main.command("schema")
@click.argument("name", type=click.Choice(["json", "advice"]))
def schema_command(name: str) -> None:
    """Print the JSON Schema of an output format."""
    from kernlint import schemas

    click.echo(json.dumps(schemas.load(name), indent=2))


# Commands imported only when named (or listed by --help): `kernlint verify`
# brings in torch-side helpers (multiprocessing, statistics) that every
# `kernlint check` would otherwise pay for at start-up (issue 14).
LAZY_COMMANDS = ("verify",)


def _register_lazy(name: str) -> None:
    if name not in LAZY_COMMANDS or name in main.commands:
        return
    try:
        from kernlint.kernels.verify_file import verify_command
    except ImportError:
        return
    main.add_command(verify_command, "verify")
