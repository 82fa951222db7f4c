"""Heat compatibility sweep: validate (and create) Heat's own templates with conv_tasks.

Nothing of Heat's is kept in this repository: give the paths of checkouts on the command
line. Two sets of templates are taken, as a new user would take them:

- `heat-templates`: every HOT YAML file in a checkout of openstack/heat-templates (a
  mapping with `heat_template_version`; environment files, CloudFormation templates and
  other YAML are left out);
- `heat-tests`: the HOT templates written inline as Python string constants in a checkout
  of openstack/heat, under `heat_integrationtests/functional` and `heat/tests` (found with
  `ast`; identical texts are taken once).

For each template, every resource type conv_tasks does not have (`OS::Nova::Server`,
`AWS::EC2::Instance`, ...) is mapped to `OS::Heat::None` in an environment, the files its
`get_file`s and provider templates name are read beside it as the CLI reads them
(conv_tasks.local_files), parameters without a default get made-up values, and the
template is validated in this process, as `conv-tasks template validate` does. With
`--create`, each valid template is created as a stack on real workers, waited for (a bound
each; a timeout is its own outcome) and deleted.

Workers: with `--start-workers` the sweep starts its own (a private redis-server on a free
port for the broker, results and SyncPoints, a database `conv_tasks_sweep_<run>` on the
configured PostgreSQL server, two workers and beat) and stops them at the end; without it,
`--create` sends to the workers the CONV_TASKS_* settings name.

    .venv/bin/python scripts/heat_compat_sweep.py \\
        --heat-templates /tmp/heat-templates --heat /tmp/heat \\
        --create --start-workers --out /tmp/sweep.json

This is a tool for people, not part of conv_tasks: it may print and exit as it likes.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

HEAT_TESTS_DIRS = ("heat_integrationtests/functional", "heat/tests")
YAML_SUFFIXES = (".yaml", ".yml", ".template")
NONE_TYPE = "OS::Heat::None"
# Made-up values for parameters without a default, by parameter type.
MADE_UP = {
    "string": "x",
    "number": 1,
    "comma_delimited_list": "a,b",
    "json": {},
    "boolean": True,
}
# Strings tried, in order, against an allowed_pattern.
PATTERN_CANDIDATES = ("x", "X", "1", "Xx1", "x1", "a-b", "10.0.0.0/24", "10.0.0.1", "true")


# ------------------------------------------------------------------ collecting


@dataclass(frozen=True)
class Candidate:
    """One template to sweep: its set, where it came from, its text, and (for a file) its
    path on disk, from which the files it names are read."""

    set_name: str
    source: str
    text: str
    path: Path | None = None


def hot_document(text: str) -> dict[str, Any] | None:
    """The YAML mapping `text` holds if it is a HOT template, else None."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    except Exception:  # a str constant can be anything; PyYAML raises more than YAMLError
        return None
    if isinstance(document, dict) and "heat_template_version" in document:
        return document
    return None


def repository_templates(root: Path) -> list[Candidate]:
    """Every HOT YAML file under `root` (a heat-templates checkout), sorted by path."""
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix not in YAML_SUFFIXES or ".git" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if hot_document(text) is not None:
            found.append(Candidate("heat-templates", str(path.relative_to(root)), text, path))
    return found


def _constant_names(tree: ast.AST) -> dict[int, str]:
    """id(string constant) -> the name it is assigned to (module, class or local)."""
    names: dict[int, str] = {}
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        if value is None:
            continue
        # `T = '''...''' % x` and `T = '''...'''.format(...)` name their template too.
        inner = value
        while isinstance(inner, ast.BinOp):
            inner = inner.left
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
            inner = inner.func.value
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
            for target in targets:
                if isinstance(target, ast.Name):
                    names[id(inner)] = target.id
                elif isinstance(target, ast.Attribute):
                    names[id(inner)] = target.attr
    return names


def inline_templates(source: str, module: str, set_name: str = "heat-tests") -> list[Candidate]:
    """The HOT templates written as string constants in one Python module's source."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names = _constant_names(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if "heat_template_version" not in node.value:
            continue
        if hot_document(node.value) is None:
            continue
        name = names.get(id(node), f"line {node.lineno}")
        found.append(Candidate(set_name, f"{module}:{name}", node.value))
    return sorted(found, key=lambda c: c.source)


def heat_tests_templates(root: Path) -> tuple[list[Candidate], int]:
    """The inline templates of a heat checkout, each text once; and how many repeats were
    left out."""
    found: list[Candidate] = []
    seen: set[str] = set()
    repeats = 0
    for folder in HEAT_TESTS_DIRS:
        for path in sorted((root / folder).rglob("*.py")):
            module = str(path.relative_to(root))
            for candidate in inline_templates(path.read_text(encoding="utf-8"), module):
                digest = hashlib.sha256(candidate.text.encode()).hexdigest()
                if digest in seen:
                    repeats += 1
                    continue
                seen.add(digest)
                found.append(candidate)
    return found, repeats


# --------------------------------------------------------- preparing a request


def _constraint_value(kind: str, constraints: Sequence[Any]) -> Any:
    """A value of `kind` that meets the simple constraints: the first allowed value; a
    number in range (and on a modulo step); a string long enough that matches every
    allowed_pattern, if one of a few candidates does."""
    rules = [c for c in constraints if isinstance(c, Mapping)]
    for rule in rules:
        allowed = rule.get("allowed_values")
        if isinstance(allowed, list) and allowed:
            return allowed[0]
    if kind == "number":
        return _number(rules)
    if kind != "string":
        return MADE_UP.get(kind, "x")
    shortest, longest, patterns = 1, None, []
    for rule in rules:
        length = rule.get("length")
        if isinstance(length, Mapping):
            if isinstance(length.get("min"), int | float):
                shortest = max(shortest, int(length["min"]))
            if isinstance(length.get("max"), int | float):
                longest = int(length["max"])
        if isinstance(rule.get("allowed_pattern"), str):
            patterns.append(rule["allowed_pattern"])
    texts = [_sized(text, shortest, longest) for text in PATTERN_CANDIDATES]
    for text in texts:
        if all(_matches(pattern, text) for pattern in patterns):
            return text
    return texts[0]


def _sized(text: str, shortest: int, longest: int | None) -> str:
    text = text + text[-1] * max(0, shortest - len(text))
    return text if longest is None else text[: max(longest, 1)]


def _matches(pattern: str, text: str) -> bool:
    try:
        return re.fullmatch(pattern, text) is not None
    except re.error:
        return False


def _number(rules: Sequence[Mapping[str, Any]]) -> int | float:
    value: int | float = 1
    for rule in rules:
        bounds = rule.get("range")
        if isinstance(bounds, Mapping):
            if isinstance(bounds.get("min"), int | float):
                value = bounds["min"]
            elif isinstance(bounds.get("max"), int | float):
                value = bounds["max"]
    for rule in rules:
        modulo = rule.get("modulo")
        if isinstance(modulo, Mapping) and isinstance(modulo.get("step"), int):
            step, offset = modulo["step"], modulo.get("offset", 0)
            if isinstance(offset, int) and step > 0:
                value = value + (offset - value) % step
    return value


def made_up_parameters(document: Mapping[str, Any]) -> dict[str, Any]:
    """Values for the parameters that have no default, chosen by type and simple
    constraints (allowed_values, range, length, modulo, allowed_pattern)."""
    values = {}
    parameters = document.get("parameters")
    if not isinstance(parameters, Mapping):
        return {}
    for name, declaration in parameters.items():
        if not isinstance(declaration, Mapping) or "default" in declaration:
            continue
        kind = str(declaration.get("type", "string")).lower()
        constraints = declaration.get("constraints")
        value = _constraint_value(kind, constraints if isinstance(constraints, list) else [])
        if kind == "comma_delimited_list" and isinstance(value, list):
            value = ",".join(str(v) for v in value)
        values[str(name)] = value
    return values


def resource_types(document: Any) -> set[str]:
    """Every resource type a template names: its resources' `type`s and, inside their
    properties, a group's `resource_def` and a scaling group's `resource` (to any depth)."""
    found: set[str] = set()
    resources = document.get("resources") if isinstance(document, Mapping) else None
    if not isinstance(resources, Mapping):
        return found
    for snippet in resources.values():
        found |= _snippet_types(snippet)
    return found


def _snippet_types(snippet: Any) -> set[str]:
    found: set[str] = set()
    if not isinstance(snippet, Mapping):
        return found
    if isinstance(snippet.get("type"), str):
        found.add(snippet["type"])
    properties = snippet.get("properties")
    if isinstance(properties, Mapping):
        for key in ("resource_def", "resource"):
            found |= _snippet_types(properties.get(key))
    return found


def heat_test_types(heat: Path | None) -> set[str]:
    """The resource types Heat's unit tests register for themselves (GenericResourceType,
    ResourceWithPropsType, ...): a user would map these as Heat's own OpenStack types."""
    names: set[str] = set()
    if heat is None:
        return names
    for path in (heat / "heat" / "tests").rglob("*.py"):
        names |= set(_REGISTERED.findall(path.read_text(encoding="utf-8")))
    return names


_REGISTERED = re.compile(r"register_class\(\s*['\"]([^'\"]+)['\"]")


def foreign_types(texts: Sequence[str], known: set[str], test_types: set[str]) -> list[str]:
    """The resource types the texts (a template and the files it sends) use that conv_tasks
    does not have: Heat's (`Vendor::Thing`) and those Heat's tests register; not provider
    templates, nor names Heat has not either (a test's `idontexist` stays unknown)."""
    from conv_tasks.template.environment import is_provider

    found: set[str] = set()
    for text in texts:
        with contextlib.suppress(Exception):
            found |= resource_types(yaml.safe_load(text))
    return sorted(
        t for t in found if t not in known and not is_provider(t) and ("::" in t or t in test_types)
    )


@dataclass
class Request:
    """What is sent for one template: its text, parameters, environment and files."""

    template: str
    parameters: dict[str, Any]
    environment: list[dict[str, Any]]
    files: dict[str, str]
    mapped: list[str]
    files_problem: str | None = None


def prepare(candidate: Candidate, known: set[str], test_types: set[str]) -> Request:
    from conv_tasks.errors import ConvTasksError
    from conv_tasks.local_files import collect

    files: dict[str, str] = {}
    files_problem = None
    if candidate.path is not None:
        try:
            files = dict(collect(str(candidate.path)).files)
        except ConvTasksError as exc:
            files_problem = first_line(str(exc))
    document = hot_document(candidate.text) or {}
    mapped = foreign_types([candidate.text, *files.values()], known, test_types)
    environment = [{"resource_registry": {t: NONE_TYPE for t in mapped}}] if mapped else []
    return Request(
        candidate.text, made_up_parameters(document), environment, files, mapped, files_problem
    )


# ------------------------------------------------------------------- outcomes


@dataclass
class Outcome:
    set_name: str
    source: str
    mapped: list[str]
    parameters: list[str]
    validate: str = ""  # valid | refused | needs-files (inline, names files its test has)
    reason: str = ""
    errors: int = 0
    create: str = ""  # COMPLETE | FAILED | timeout | refused | ""(not tried)
    create_reason: str = ""
    delete: str = ""
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def validate(candidate: Candidate, request: Request, outcome: Outcome) -> None:
    from conv_tasks.constraints import installed_checkers
    from conv_tasks.engine import validate_template
    from conv_tasks.settings import get_settings

    if request.files_problem is not None:
        outcome.validate, outcome.reason = "refused", f"files: {request.files_problem}"
        return
    result = validate_template(
        request.template,
        request.parameters,
        filename=candidate.source,
        environment=request.environment,
        files=request.files,
        constraints=installed_checkers().strictly(get_settings().strict_constraints),
    )
    if result["valid"]:
        outcome.validate = "valid"
        return
    outcome.validate = "refused"
    errors = result["errors"]
    outcome.errors = len(errors)
    first = errors[0]
    where = f" (line {first['line']})" if first.get("line") else ""
    outcome.reason = first_line(f"{first.get('path', '')}: {first.get('message', '')}") + where
    if candidate.path is None and needs_files(str(first.get("message", ""))):
        outcome.validate = "needs-files"


_NOT_SENT = (
    "which is not in the files sent with the request",
    "is not among the files given with the template",
)
_UNKNOWN_TYPE = re.compile(r"unknown resource type '([^']+)'")


def needs_files(message: str) -> bool:
    """Whether a refusal is for a file the template's test supplies beside it (a provider
    template or a get_file), which an inline template cannot send."""
    from conv_tasks.template.environment import is_provider

    if any(text in message for text in _NOT_SENT):
        return True
    unknown = _UNKNOWN_TYPE.search(message)
    return unknown is not None and is_provider(unknown.group(1))


_QUOTED = re.compile(r"(?<![A-Za-z])'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"\b\d+\b")
_RESOURCE_PATH = re.compile(r"\b(resources|outputs|parameters|conditions)\.[^.:\s]+")


def reason_group(reason: str) -> str:
    """A refusal's message with the names and numbers that differ between templates
    replaced, so that one cause counts once per template."""
    text = re.sub(r" \(line \d+\)$", "", reason)
    text = re.sub(r" \(referred to by .*", "", text)
    text = _RESOURCE_PATH.sub(r"\1.*", text)
    text = _QUOTED.sub("'…'", text)
    return _NUMBER.sub("N", text)


# ------------------------------------------------------------------- creating


@contextlib.contextmanager
def own_workers(log_dir: Path) -> Iterator[None]:
    """A private redis-server (broker, results, SyncPoints), a database of the run's own on
    the configured PostgreSQL server, two workers and beat; set in this process's
    environment for the Client. All stopped, and the database dropped, at the end."""
    from conv_tasks.celery_processes import CeleryProcesses
    from conv_tasks.db import drop_database
    from conv_tasks.secrets_at_rest import new_key
    from conv_tasks.settings import Settings, get_settings
    from conv_tasks.testing import PrivateRedis, fresh_database

    run = uuid.uuid4().hex[:6]
    redis = PrivateRedis()
    redis.start()
    url = fresh_database(Settings.from_env().database_url, f"sweep_{run}")
    env = {
        "CONV_TASKS_DATABASE_URL": url,
        "CONV_TASKS_BROKER_URL": redis.url(0),
        "CONV_TASKS_REDIS_URL": redis.url(1),
        "CONV_TASKS_RESULT_BACKEND": redis.url(2),
        "CONV_TASKS_REDIS_PREFIX": f"sweep-{run}",
        "CONV_TASKS_ENCRYPTION_KEYS": new_key(),
    }
    os.environ.update(env)
    get_settings.cache_clear()
    procs = CeleryProcesses(log_dir, env=env, suffix=run)
    try:
        procs.start_worker("sweep1")
        procs.start_worker("sweep2")
        procs.start_beat()
        procs.wait_ready()
        print(f"workers up (logs in {log_dir})", file=sys.stderr)
        yield
    finally:
        procs.stop_all()
        redis.stop()
        drop_database(url)


def _poll(client: Any, stack: str, prefix: str, deadline: float) -> dict[str, Any] | None:
    """The stack once its `prefix` operation (CREATE, DELETE) has finished; None at the
    deadline."""
    from conv_tasks.errors import NotFound

    while True:
        try:
            shown = client.get(stack, include_deleted=True)
        except NotFound:
            return {"status": f"{prefix}_COMPLETE", "status_reason": "gone"}
        status = str(shown.get("status", ""))
        if status.startswith(prefix) and status.endswith(("COMPLETE", "FAILED")):
            return dict(shown)
        if time.monotonic() > deadline:
            return None
        time.sleep(0.5)


def create_batch(
    client: Any, batch: Sequence[tuple[Request, Outcome]], run: str, bound: float
) -> None:
    """Create a batch of stacks at once, wait for each (up to `bound` seconds), then delete
    them all and wait for that."""
    from conv_tasks.errors import ConvTasksError

    started: list[tuple[str, float, Outcome]] = []
    for request, outcome in batch:
        name = f"sweep-{run}-{len(started)}-{uuid.uuid4().hex[:6]}"
        try:
            created = client.create(
                name,
                request.template,
                request.parameters,
                environment=request.environment or None,
                files=request.files or None,
                disable_rollback=True,
            )
        except ConvTasksError as exc:
            outcome.create, outcome.create_reason = "refused", first_line(str(exc))
            continue
        started.append((str(created.get("stack_id") or created.get("id") or name), 0.0, outcome))
    began = time.monotonic()
    for stack, _, outcome in started:
        final = _poll(client, stack, "CREATE", began + bound)
        outcome.seconds = round(time.monotonic() - began, 1)
        if final is None:
            outcome.create = "timeout"
            continue
        status = str(final["status"])
        outcome.create = "COMPLETE" if status.endswith("COMPLETE") else "FAILED"
        if outcome.create == "FAILED":
            outcome.create_reason = first_line(str(final.get("status_reason") or ""))
    for stack, _, outcome in started:
        try:
            client.delete(stack)
        except ConvTasksError as exc:
            outcome.delete = f"refused: {first_line(str(exc))}"
    began = time.monotonic()
    for stack, _, outcome in started:
        if outcome.delete:
            continue
        final = _poll(client, stack, "DELETE", began + bound)
        outcome.delete = "timeout" if final is None else str(final["status"])


# -------------------------------------------------------------------- report


def summary(outcomes: Sequence[Outcome], *, created: bool, top: int) -> dict[str, Any]:
    def share(count: int, total: int) -> float:
        return round(100.0 * count / total, 1) if total else 0.0

    sets: dict[str, Any] = {}
    for set_name in sorted({o.set_name for o in outcomes}):
        mine = [o for o in outcomes if o.set_name == set_name]
        total = len(mine)
        valid = sum(o.validate == "valid" for o in mine)
        entry: dict[str, Any] = {
            "total": total,
            "valid": valid,
            "valid_share": share(valid, total),
            "mapped_to_none": sum(bool(o.mapped) for o in mine),
            "needs_files": sum(o.validate == "needs-files" for o in mine),
            "refused": sum(o.validate == "refused" for o in mine),
            "refusal_groups": Counter(
                reason_group(o.reason) for o in mine if o.validate == "refused"
            ).most_common(top),
        }
        if created:
            outcomes_seen = Counter(o.create for o in mine if o.validate == "valid")
            complete = outcomes_seen.get("COMPLETE", 0)
            entry.update(
                create_complete=complete,
                create_share=share(complete, total),
                create_outcomes=dict(outcomes_seen),
                create_failure_groups=Counter(
                    reason_group(o.create_reason) for o in mine if o.create in ("FAILED", "refused")
                ).most_common(top),
                not_deleted=[
                    o.source for o in mine if o.create and o.delete not in ("", "DELETE_COMPLETE")
                ],
            )
        sets[set_name] = entry
    return sets


def print_summary(sets: Mapping[str, Any]) -> None:
    for set_name, entry in sets.items():
        print(
            f"== {set_name}: {entry['total']} templates ({entry['mapped_to_none']} with types "
            f"mapped to {NONE_TYPE})"
        )
        print(
            f"   validate: {entry['valid']}/{entry['total']} ({entry['valid_share']}%); "
            f"refused {entry['refused']}, needing files their test supplies "
            f"{entry['needs_files']}"
        )
        if "create_complete" in entry:
            print(
                f"   create:   {entry['create_complete']}/{entry['total']} "
                f"({entry['create_share']}%)  {entry['create_outcomes']}"
            )
        print("   refusals:")
        for reason, count in entry["refusal_groups"]:
            print(f"     {count:4d}  {reason}")
        if entry.get("create_failure_groups"):
            print("   create failures:")
            for reason, count in entry["create_failure_groups"]:
                print(f"     {count:4d}  {reason}")
        if entry.get("not_deleted"):
            print(f"   not deleted: {', '.join(entry['not_deleted'])}")


def _commit(root: Path) -> str:
    with contextlib.suppress(Exception):
        return subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    return ""


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--heat-templates", type=Path, help="a heat-templates checkout")
    parser.add_argument("--heat", type=Path, help="a heat checkout (its tests' inline templates)")
    parser.add_argument("--create", action="store_true", help="create and delete each valid one")
    parser.add_argument(
        "--start-workers", action="store_true", help="start private workers for --create"
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per create/delete")
    parser.add_argument("--batch", type=int, default=8, help="stacks created at once")
    parser.add_argument("--match", default="", help="only sources matching this regex")
    parser.add_argument("--top", type=int, default=15, help="refusal groups shown per set")
    parser.add_argument("--out", type=Path, help="write the JSON report here")
    parser.add_argument("--log-dir", type=Path, help="worker logs (--start-workers)")
    args = parser.parse_args(argv)
    if args.heat_templates is None and args.heat is None:
        parser.error("give --heat-templates and/or --heat")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from conv_tasks.resources import default_registry

    candidates: list[Candidate] = []
    sources: dict[str, Any] = {}
    if args.heat_templates is not None:
        candidates += repository_templates(args.heat_templates)
        sources["heat-templates"] = {
            "path": str(args.heat_templates),
            "commit": _commit(args.heat_templates),
        }
    if args.heat is not None:
        inline, repeats = heat_tests_templates(args.heat)
        candidates += inline
        sources["heat-tests"] = {
            "path": str(args.heat),
            "commit": _commit(args.heat),
            "repeats_left_out": repeats,
        }
    if args.match:
        candidates = [c for c in candidates if re.search(args.match, c.source)]
    known = {cls.type_name for cls in default_registry().list(include_hidden=True)}
    test_types = heat_test_types(args.heat)
    prepared: list[tuple[Request, Outcome]] = []
    for candidate in candidates:
        request = prepare(candidate, known, test_types)
        outcome = Outcome(
            candidate.set_name, candidate.source, request.mapped, sorted(request.parameters)
        )
        try:
            validate(candidate, request, outcome)
        except Exception as exc:  # a crash is a finding: record it, go on
            outcome.validate, outcome.reason = "refused", f"CRASH {type(exc).__name__}: {exc}"
        prepared.append((request, outcome))
    print(f"validated {len(prepared)} templates", file=sys.stderr)
    if args.create:
        run_creates(args, [(r, o) for r, o in prepared if o.validate == "valid"])
    outcomes = [o for _, o in prepared]
    sets = summary(outcomes, created=args.create, top=args.top)
    print_summary(sets)
    if args.out is not None:
        report = {
            "sources": sources,
            "known_types": sorted(known),
            "sets": sets,
            "templates": [asdict(o) for o in outcomes],
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1, default=str) + "\n")
    return 0


def run_creates(args: argparse.Namespace, valid: list[tuple[Request, Outcome]]) -> None:
    from conv_tasks.client import Client

    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="conv-tasks-sweep-"))
    context = own_workers(log_dir) if args.start_workers else contextlib.nullcontext()
    with context:
        run = uuid.uuid4().hex[:4]
        client = Client(tenant=f"sweep-{run}", timeout=max(60.0, args.timeout))
        for start in range(0, len(valid), args.batch):
            create_batch(client, valid[start : start + args.batch], run, args.timeout)
            print(f"created {min(start + args.batch, len(valid))}/{len(valid)}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
