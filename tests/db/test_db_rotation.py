"""Keys rotate (`conv-tasks db rotate-key`): on a database of its own, rows sealed with an old
key and rows written before any key are re-sealed with the new first key; a second run
re-seals nothing; the old key can then be dropped and every value still reads; and a writer
racing the rotation loses nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from conv_tasks.db import Database, reseal_database
from conv_tasks.db.deployments import PostgresDeployments
from conv_tasks.db.migrate import upgrade
from conv_tasks.db.models import Stack
from conv_tasks.db.session import node_connection, session_scope
from conv_tasks.deployments.records import (
    ConfigInput,
    DeployAction,
    DeploymentAction,
    SoftwareConfig,
)
from conv_tasks.errors import EncryptionKeyError
from conv_tasks.secrets_at_rest import PLAINTEXT, Sealer, new_key

SECRET = "rotation-secret-value"
TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {"pw": {"type": "string", "hidden": True, "default": SECRET}},
    "resources": {"r": {"type": "OS::Heat::None"}},
}
CONFIG = SoftwareConfig(
    id=str(uuid.uuid4()),
    name="config",
    group="script",
    config=f"#!/bin/sh\nlogin {SECRET}\n",
    inputs=(ConfigInput("pw", default=SECRET),),
    outputs=(),
)


@pytest.fixture
def rotation_url(database_url: str) -> Iterator[str]:
    """A migrated database of this test's own: a rotation rewrites every row it holds."""
    target = make_url(database_url).set(database=f"{make_url(database_url).database}_rotation")
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{target.database}"'))
    url = target.render_as_string(hide_password=False)
    upgrade(url)
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
        admin.dispose()


def _stack_with_secrets(url: str, sealer: Sealer) -> dict[str, Any]:
    """A stack, its template, a resource version and a deployment, written with `sealer`."""
    db = Database(url, sealer=sealer)
    stack_id = str(uuid.uuid4())
    with db.transaction() as tx:
        tmpl = tx.templates.add(
            TEMPLATE, {"pw": SECRET}, {"f.yaml": SECRET}, {"parameters": {"pw": SECRET}}
        )
    with session_scope(url) as session:
        session.add(
            Stack(
                id=stack_id,
                name=f"s-{stack_id[:8]}",
                tenant="t",
                action="CREATE",
                status="COMPLETE",
                raw_template_id=tmpl.id,
            )
        )
    with db.transaction() as tx:
        tx.resources.add(
            [
                {
                    "stack_id": stack_id,
                    "name": "r",
                    "version": 0,
                    "type": "OS::Heat::None",
                    "properties_data": {"password": SECRET},
                    "attr_data": {"attributes": {"token": SECRET}},
                    "plugin_data": {"kept": SECRET},
                }
            ]
        )
    store = PostgresDeployments(url, sealer=sealer)
    config = replace(CONFIG, id=str(uuid.uuid4()))
    store.save_config(stack_id, config)
    deployment_id = str(uuid.uuid4())
    store.publish(
        DeploymentAction(
            id=deployment_id,
            stack_id=stack_id,
            resource_name="deploy",
            server="srv",
            name="deploy",
            config=config,
            input_values={"pw": SECRET},
            action=DeployAction.CREATE,
            token=str(uuid.uuid4()),
        )
    )
    return {"stack_id": stack_id, "template_id": tmpl.id, "config_id": config.id}


def _read_everything(url: str, sealer: Sealer, made: dict[str, Any]) -> None:
    """Every sealed value of the stack, read through the repositories with `sealer`."""
    db = Database(url, sealer=sealer)
    with db.transaction() as tx:
        tmpl = tx.templates.get(made["template_id"])
        assert tmpl.template == TEMPLATE and list(tmpl.template) == list(TEMPLATE)
        assert tmpl.parameters == {"pw": SECRET} and tmpl.files == {"f.yaml": SECRET}
        assert tmpl.environment == {"parameters": {"pw": SECRET}}
        [version] = tx.resources.of_stack(made["stack_id"])
        assert version.properties_data == {"password": SECRET}
        assert version.attr_data == {"attributes": {"token": SECRET}}
        assert version.plugin_data == {"kept": SECRET}
        [deployment] = tx.deployments.of_stack(made["stack_id"])
        assert deployment.input_values == {"pw": SECRET} and SECRET in deployment.config
        assert deployment.config_inputs[0]["default"] == SECRET
    config = PostgresDeployments(url, sealer=sealer).config(made["stack_id"], made["config_id"])
    assert config is not None and SECRET in config.config
    with node_connection(url) as conn:
        from conv_tasks.db.nodes import NodeStore

        store = NodeStore(
            conn,
            stack_id=made["stack_id"],
            traversal=str(uuid.uuid4()),
            template_id=made["template_id"],
            nonce=str(uuid.uuid4()),
            sealer=sealer,
        )
        texts = store.template(made["template_id"])
        assert texts is not None and SECRET in texts[0] and SECRET in texts[1]


def _plaintext_cells(url: str) -> int:
    """How many sealed cells of the database hold the secret in plain text."""
    from conv_tasks.db import SEALED_COLUMNS

    found = 0
    engine = create_engine(url)
    with engine.connect() as conn:
        for table, (_, columns) in SEALED_COLUMNS.items():
            for column in columns:
                found += conn.execute(
                    text(f"SELECT count(*) FROM {table} WHERE {column}::text LIKE :secret"),
                    {"secret": f"%{SECRET}%"},
                ).scalar_one()
    engine.dispose()
    return found


def _rotate_key(url: str, keys: str) -> str:
    env = {**os.environ, "CONV_TASKS_DATABASE_URL": url, "CONV_TASKS_ENCRYPTION_KEYS": keys}
    done = subprocess.run(
        [sys.executable, "-c", "from conv_tasks.cli.main import main; main()", "db", "rotate-key"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert not any(key in done.stdout + done.stderr for key in keys.split(","))
    return done.stdout.strip()


def test_rotate_key_reseals_old_and_plaintext_rows_and_the_old_key_can_go(
    rotation_url: str,
) -> None:
    old, new = new_key(), new_key()
    sealed = _stack_with_secrets(rotation_url, Sealer([old]))
    plain = _stack_with_secrets(rotation_url, PLAINTEXT)  # written before any key was set
    # The plaintext stack's cells that hold it: template, parameters, files, environment;
    # properties, attributes, plugin data; config and inputs; config, inputs, input values.
    assert _plaintext_cells(rotation_url) == 12
    # Old rows read beside new ones while both keys are set.
    for made in (sealed, plain):
        _read_everything(rotation_url, Sealer([new, old]), made)

    # 2 stacks x (4 template (no facade) + 3 resource + 3 config + 5 deployment) values.
    assert _rotate_key(rotation_url, f"{new},{old}") == (
        "Re-encrypted 30 value(s) with the first key (raw_template 8, resource 6, "
        "software_config 6, software_deployment 10)."
    )
    assert (
        _rotate_key(rotation_url, f"{new},{old}") == "Re-encrypted 0 value(s) with the first key."
    )
    assert _plaintext_cells(rotation_url) == 0

    # The old key dropped: everything reads with the new one alone, and no longer with the old.
    for made in (sealed, plain):
        _read_everything(rotation_url, Sealer([new]), made)
    with pytest.raises(EncryptionKeyError, match="CONV_TASKS_ENCRYPTION_KEYS"):
        _read_everything(rotation_url, Sealer([old]), sealed)


def test_rotate_key_without_a_key_refuses_and_names_the_setting(rotation_url: str) -> None:
    env = {**os.environ, "CONV_TASKS_DATABASE_URL": rotation_url, "CONV_TASKS_ENCRYPTION_KEYS": ""}
    done = subprocess.run(
        [sys.executable, "-c", "from conv_tasks.cli.main import main; main()", "db", "rotate-key"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert "CONV_TASKS_ENCRYPTION_KEYS is not set" in done.stderr


def test_a_writer_racing_the_rotation_loses_no_write(rotation_url: str) -> None:
    old, new = new_key(), new_key()
    made = [_stack_with_secrets(rotation_url, Sealer([old])) for _ in range(3)]
    writer_db = Database(rotation_url, sealer=Sealer([new, old]))
    stop = threading.Event()
    last: dict[str, int] = {}

    def write() -> None:
        round_ = 0
        while not stop.is_set():
            round_ += 1
            for stack in made:
                with writer_db.transaction() as tx:
                    [version] = tx.resources.of_stack(stack["stack_id"])
                    assert tx.resources.compare_and_swap(
                        version.id, version.atomic_key, properties_data={"round": round_}
                    )
                last[stack["stack_id"]] = round_

    writer = threading.Thread(target=write)
    writer.start()
    try:
        for _ in range(3):
            reseal_database(rotation_url, Sealer([new, old]), batch_size=1)
    finally:
        stop.set()
        writer.join(timeout=30)
    assert reseal_database(rotation_url, Sealer([new, old])).total == 0
    reader = Database(rotation_url, sealer=Sealer([new]))
    with reader.transaction() as tx:
        for stack in made:
            [version] = tx.resources.of_stack(stack["stack_id"])
            assert version.properties_data == {"round": last[stack["stack_id"]]}
