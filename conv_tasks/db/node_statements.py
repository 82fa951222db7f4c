"""The SQL of a graph node's repository operations (conv_tasks.db.nodes), built once.

Each statement does a whole step: CTEs read and write together, RETURNING
hands back what the step needs, and every write names the lease nonce that
allows it. Text, not ORM: the hot path neither builds nor compiles SQL. Each
is compiled once, for psycopg's %(name)s parameters, and run on the driver's
connection (conv_tasks.db.nodes).
"""

from __future__ import annotations

from functools import lru_cache

from sqlalchemy import text
from sqlalchemy.dialects.postgresql.psycopg import dialect as psycopg_dialect

# Columns of a version that a node reads, in this order.
COLUMNS = (
    "id",
    "name",
    "version",
    "type",
    "physical_id",
    "action",
    "status",
    "status_reason",
    "template_id",
    "properties_data",
    "attr_data",
    "plugin_data",
    "definition_hash",
    "requires",
    "deletion_policy",
    "replaces",
    "replaced_by",
    "lock_nonce",
    "action_started_at",
    "action_deadline",
    "interrupt_reason",
)
JSON_COLUMNS = frozenset({"properties_data", "attr_data", "plugin_data", "requires"})
# What a node may write on a version it holds: every column it reads but the version's identity,
# its place among the versions (start_version and reinstate set those) and the lease.
WRITABLE = frozenset(COLUMNS) - {
    "id",
    "name",
    "version",
    "replaces",
    "replaced_by",
    "lock_nonce",
}


_DIALECT = psycopg_dialect()


def _compiled(statement: str) -> str:
    """`statement`, written with :name parameters, as psycopg runs it (%(name)s)."""
    return str(text(statement).compile(dialect=_DIALECT))


def columns(alias: str = "") -> str:
    """The columns a node reads, each prefixed with `alias`."""
    return ", ".join(f"{alias}{name}" for name in COLUMNS)


# A lease is free to a delivery when nobody holds it, when it expired, or when it is the one
# the delivery's message continues (`:continues`, a poll's or a retry's). Each delivery then
# holds it under a nonce of its own (`:nonce`): a second delivery of the same message (a
# redelivery after a partition, and the cut-off worker coming back) no longer matches, so
# two deliveries never both hold a lease, and the late one's writes are refused. (`:continues`
# may be NULL: coalesce keeps the test two-valued, as `NOT _FREE` needs.)
_OURS = "(r.lock_nonce = :nonce OR coalesce(r.lock_nonce = :continues, false))"
_FREE = f"(r.lock_holder IS NULL OR r.lock_expires_at < now() OR {_OURS})"
_LEASE = "lock_expires_at = now() + make_interval(secs => :ttl)"
_RELEASE = "lock_holder = NULL, lock_nonce = NULL, lock_expires_at = NULL, waiter = NULL"
_EVENTS = """unnest(CAST(:ev_rid AS bigint[]), CAST(:ev_action AS text[]),
               CAST(:ev_status AS text[]), CAST(:ev_reason AS text[]),
               CAST(:ev_physical AS text[]))
        WITH ORDINALITY AS e(rid, action, status, reason, physical_id, ord)"""
_INSERT_EVENTS = f"""INSERT INTO event (stack_id, resource_name, physical_id, action, status,
                       reason, traversal)
    SELECT :stack_id, :name, e.physical_id, e.action, e.status, e.reason, :traversal
    FROM {_EVENTS}"""

# Claim: is the traversal current, take the lease on the targets (the head for an update
# node; the versions to purge for a clean-up node), else note us as the waiter of one that
# another node holds, and return the stack's state with every version of the resource.
CLAIM = _compiled(
    f"""
WITH st AS (
    SELECT current_traversal = :traversal AND raw_template_id = :template_id
               AND status = 'IN_PROGRESS' AS is_current,
           action, raw_template_id, timeout_mins, operation_started_at, tenant
    FROM stack WHERE id = :stack_id AND deleted_at IS NULL
),
known AS (
    SELECT r.id, r.version, r.replaced_by, {_FREE} AS free
    FROM resource r WHERE r.stack_id = :stack_id AND r.name = :name
),
head AS (SELECT id FROM known WHERE replaced_by IS NULL ORDER BY version DESC LIMIT 1),
targets AS (
    SELECT k.id, k.version, k.free FROM known k
    WHERE CASE WHEN :cleanup THEN NOT :in_template OR k.id NOT IN (SELECT id FROM head)
               ELSE k.id IN (SELECT id FROM head) END
),
claimed AS (
    UPDATE resource r
    SET lock_holder = :traversal, lock_nonce = :nonce, {_LEASE}, atomic_key = r.atomic_key + 1,
        waiter = CASE WHEN r.waiter = :waiter THEN NULL ELSE r.waiter END
    FROM st, targets t
    WHERE r.id = t.id AND t.free AND {_FREE}
      AND (st.is_current OR {_OURS})
      AND (:cleanup OR r.replaced_by IS NULL)
    RETURNING {columns("r.")}
),
queued AS (
    UPDATE resource r SET waiter = :waiter
    FROM st
    WHERE st.is_current AND NOT {_FREE}
      AND r.id = (SELECT id FROM targets WHERE NOT free ORDER BY version DESC LIMIT 1)
    RETURNING r.id
)
SELECT st.is_current, st.action AS stack_action, st.raw_template_id, st.timeout_mins,
       st.operation_started_at, st.tenant, now() AS db_now,
       EXISTS (SELECT 1 FROM queued) AS queued,
       v.id IN (SELECT id FROM claimed) AS held, v.*
FROM st LEFT JOIN (
    SELECT {columns()} FROM claimed
    UNION ALL
    SELECT {columns()} FROM resource
    WHERE stack_id = :stack_id AND name = :name AND id NOT IN (SELECT id FROM claimed)
) v ON true
ORDER BY v.version
"""
)

# Start a new version that takes over from the head we hold: insert it under our lease,
# mark the head replaced (handing it the physical resource, for an update in place), release
# the head, record the IN_PROGRESS event.
START_VERSION = _compiled(
    f"""
WITH prior AS (
    SELECT id, waiter FROM resource WHERE id = :head_id AND lock_nonce = :nonce FOR UPDATE
),
fresh AS (SELECT nextval(pg_get_serial_sequence('resource', 'id')) AS id FROM prior),
old AS (
    UPDATE resource r
    SET replaced_by = fresh.id,
        physical_id = CASE WHEN :in_place THEN NULL ELSE r.physical_id END,
        {_RELEASE}, atomic_key = r.atomic_key + 1, updated_at = now()
    FROM prior, fresh WHERE r.id = prior.id
    RETURNING prior.waiter AS woken
),
new AS (
    INSERT INTO resource (id, stack_id, name, version, type, physical_id, action, status,
        status_reason, template_id, properties_data, attr_data, plugin_data, definition_hash,
        requires, deletion_policy, replaces, lock_holder, lock_nonce, lock_expires_at,
        action_started_at, action_deadline, atomic_key)
    SELECT fresh.id, :stack_id, :name, :version, :type, :physical_id, :action, 'IN_PROGRESS',
        :status_reason, :template_id, CAST(:properties_data AS jsonb), '{{}}',
        CAST(:plugin_data AS jsonb), :definition_hash, CAST(:requires AS jsonb),
        :deletion_policy, :head_id, :traversal, :nonce,
        now() + make_interval(secs => :ttl), :action_started_at, :action_deadline, 0
    FROM fresh
    RETURNING {columns()}
),
logged AS (
    INSERT INTO event (stack_id, resource_name, physical_id, action, status, reason, traversal)
    SELECT :stack_id, :name, new.physical_id, :action, 'IN_PROGRESS', :reason, :traversal
    FROM new
)
SELECT new.*, true AS held, (SELECT woken FROM old) AS woken FROM new
"""
)

# Reinstate an older version that already matches the definition: it becomes the head under
# our lease, the head we hold is marked replaced by it and released. Only if the version is
# still as the node read it (complete, holding its resource, of that definition) and no node
# holds a lease on it: a clean-up that leased it (and may have died holding the lease) may have
# begun deleting it; one that let go either did nothing to it or recorded what it did.
REINSTATE = _compiled(
    f"""
WITH prior AS (
    SELECT id, waiter FROM resource WHERE id = :head_id AND lock_nonce = :nonce FOR UPDATE
),
keep AS (
    UPDATE resource r
    SET replaced_by = NULL, lock_holder = :traversal, lock_nonce = :nonce, {_LEASE},
        atomic_key = r.atomic_key + 1, updated_at = now()
    FROM prior
    WHERE r.id = :keep_id AND r.lock_nonce IS NULL AND r.status = 'COMPLETE'
      AND r.physical_id IS NOT NULL AND r.definition_hash = :keep_hash
    RETURNING {columns("r.")}
),
old AS (
    UPDATE resource r
    SET replaced_by = :keep_id, {_RELEASE}, atomic_key = r.atomic_key + 1, updated_at = now()
    FROM prior, keep WHERE r.id = prior.id
    RETURNING prior.waiter AS woken
),
logged AS (
    INSERT INTO event (stack_id, resource_name, physical_id, action, status, reason, traversal)
    SELECT :stack_id, :name, keep.physical_id, 'UPDATE', 'COMPLETE', :reason, :traversal
    FROM keep
)
SELECT keep.*, true AS held, (SELECT woken FROM old) AS woken FROM keep
"""
)

# Delete versions we hold (purged by a clean-up node), with their events.
DROP = _compiled(
    f"""
WITH gone AS (
    DELETE FROM resource WHERE id = ANY(CAST(:ids AS bigint[])) AND lock_nonce = :nonce
    RETURNING id, waiter AS woken
),
logged AS (
    {_INSERT_EVENTS}
    WHERE e.rid IN (SELECT id FROM gone)
    ORDER BY e.ord
)
SELECT id, woken FROM gone
"""
)

# Is the node `waiter` names still written down as waiting for a version of the resource?
WAITING = _compiled(
    """
SELECT EXISTS (
    SELECT 1 FROM resource WHERE stack_id = :stack_id AND name = :name AND waiter = :waiter
)
"""
)

EVENT = _compiled(
    """
INSERT INTO event (stack_id, resource_name, physical_id, action, status, reason, traversal)
VALUES (:stack_id, :name, NULL, :action, :status, :reason, :traversal)
"""
)

OUTPUTS = _compiled(
    """
SELECT DISTINCT ON (name) name, attr_data FROM resource
WHERE stack_id = :stack_id AND name = ANY(CAST(:names AS text[])) AND replaced_by IS NULL
ORDER BY name, version DESC
"""
)

# A stored template as JSON text; its facade is null (or NULL) unless it is a nested
# stack's.
TEMPLATE = _compiled(
    "SELECT template::text, parameters::text, environment::text, files::text, facade::text "
    "FROM raw_template WHERE id = :id"
)


@lru_cache(maxsize=64)
def write_statement(fields: tuple[str, ...], release: bool, purge: bool) -> str:
    """The statement writing `fields` on a version we hold; built once per shape."""
    assign = [
        f"{name} = CAST(:f_{name} AS jsonb)" if name in JSON_COLUMNS else f"{name} = :f_{name}"
        for name in fields
    ]
    assign.append(_RELEASE if release else _LEASE)
    woken = "prior.waiter" if release else "NULL::text"
    purged = (
        """,
purged AS (
    DELETE FROM resource d USING written
    WHERE d.id = :purge AND d.physical_id IS NULL
      AND (d.lock_holder IS NULL OR d.lock_expires_at < now())
    RETURNING d.waiter AS woken
)"""
        if purge
        else ""
    )
    tail = "\nUNION ALL SELECT 'purged', woken FROM purged" if purge else ""
    return _compiled(
        f"""
WITH prior AS (
    SELECT id, waiter FROM resource WHERE id = :id AND lock_nonce = :nonce FOR UPDATE
),
written AS (
    UPDATE resource r SET {", ".join(assign)}, atomic_key = r.atomic_key + 1, updated_at = now()
    FROM prior WHERE r.id = prior.id
    RETURNING r.id, {woken} AS woken
){purged},
logged AS (
    {_INSERT_EVENTS}, written
    ORDER BY e.ord
)
SELECT 'written' AS what, woken FROM written{tail}
"""
    )
