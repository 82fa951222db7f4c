"""The capacity model's arithmetic (benchmarks/capacity.py) on stand-in numbers: no services."""

from __future__ import annotations

import math

import pytest

from benchmarks.capacity import Limit, PerNode, Rates, ShapeRun, fit, fleet_needs

RATES = Rates(
    cores=2, core_instructions_per_s=1e9, pg_commits_per_s=10_000, redis_commands_per_s=100_000
)
# 5 ms of a core per node in the worker, 3 ms in the services; 2 commits, 10 SyncPoint and 4
# broker commands.
NODE = PerNode(
    5e6, pg_transactions=2, redis_commands=10, broker_commands=4, other_cpu_seconds=0.003
)


def test_each_resource_limit_is_its_capacity_over_the_node_cost() -> None:
    model = fit(RATES, ShapeRun("chain", 1, NODE, {1: 100.0}))
    assert model.worker_cpu_seconds == pytest.approx(0.005)
    assert model.resource_limits() == pytest.approx(
        {
            Limit.WORKER_CPU: 2 / 0.005,  # 400
            Limit.BOX_CPU: 2 / (0.005 + 0.003),  # 250
            Limit.POSTGRES: 10_000 / 2,  # 5,000
            Limit.REDIS: 100_000 / 10,  # 10,000
            Limit.BROKER: 100_000 / 4,  # 25,000
        }
    )
    assert model.first_limit() == (Limit.WORKER_CPU, pytest.approx(400))


def test_a_chain_does_not_scale_with_processes() -> None:
    model = fit(RATES, ShapeRun("chain", 1, NODE, {1: 100.0, 2: 98.0, 4: 97.0}))
    assert model.seconds_per_node == pytest.approx(0.01)
    for processes in (1, 2, 4):
        prediction = model.predict(processes)
        assert prediction.limit is Limit.SHAPE
        assert prediction.predicted == pytest.approx(100)
    assert model.predict(2).ratio == pytest.approx(0.98)


def test_a_wide_fan_scales_until_the_machine_cpu_binds() -> None:
    model = fit(RATES, ShapeRun("fan", 998, NODE, {1: 150.0, 2: 240.0}))
    one, two, four = (model.predict(p) for p in (1, 2, 4))
    assert (one.limit, one.predicted) == (Limit.SHAPE, pytest.approx(150))
    # 2 processes would run 300 nodes/s, but the box's two cores allow 250.
    assert (two.limit, two.predicted) == (Limit.BOX_CPU, pytest.approx(250))
    assert (four.limit, four.predicted) == (Limit.BOX_CPU, pytest.approx(250))
    assert two.ratio == pytest.approx(240 / 250)
    assert four.measured is None and four.ratio is None


def test_other_work_on_the_machine_leaves_fewer_cores() -> None:
    run = ShapeRun("fan", 998, NODE, {1: 100.0, 2: 150.0}, other_cores={2: 0.8})
    model = fit(RATES, run)
    # 1.2 of the 2 cores left: 1.2 / 8 ms = 150 nodes/s.
    assert model.box_limit(2) == pytest.approx(150)
    assert model.predict(2).limit is Limit.BOX_CPU
    assert model.predict(2).ratio == pytest.approx(1.0)
    assert model.box_limit(1) == pytest.approx(250)  # nothing else measured at one process


def test_the_machine_limit_is_never_below_what_one_process_did() -> None:
    # Other work seemed to keep 1.5 cores busy: 0.5 / 8 ms = 62.5 nodes/s, but one process
    # was measured at 100: the machine did that much.
    run = ShapeRun("fan", 998, NODE, {1: 100.0, 2: 110.0}, other_cores={1: 1.5, 2: 1.5})
    model = fit(RATES, run)
    assert model.box_limit(1) == pytest.approx(100)
    assert model.box_limit(2) == pytest.approx(100)
    one, two = model.predict(1), model.predict(2)
    assert (one.predicted, one.ratio) == (pytest.approx(100), pytest.approx(1.0))
    assert (two.limit, two.predicted) == (Limit.BOX_CPU, pytest.approx(100))


def test_a_narrow_fan_is_capped_by_its_width() -> None:
    model = fit(RATES, ShapeRun("fan", 3, NODE, {1: 10.0}))
    assert model.shape_limit(2) == pytest.approx(20)
    assert model.shape_limit(4) == pytest.approx(30)


def test_postgres_or_redis_limits_when_nodes_commit_or_call_a_lot() -> None:
    heavy_pg = PerNode(instructions=1e5, pg_transactions=100, redis_commands=1)
    model = fit(RATES, ShapeRun("fan", 998, heavy_pg, {1: 1000.0}))
    assert model.first_limit() == (Limit.POSTGRES, pytest.approx(100))
    assert model.predict(4).limit is Limit.POSTGRES
    heavy_redis = PerNode(instructions=1e5, pg_transactions=0, redis_commands=5000)
    model = fit(RATES, ShapeRun("fan", 998, heavy_redis, {1: 1000.0}))
    assert model.resource_limits()[Limit.POSTGRES] == math.inf
    assert model.resource_limits()[Limit.BROKER] == math.inf
    assert model.first_limit() == (Limit.REDIS, pytest.approx(20))
    heavy_broker = PerNode(1e5, 1, 1, broker_commands=2000)
    model = fit(RATES, ShapeRun("fan", 998, heavy_broker, {1: 1000.0}))
    assert model.first_limit() == (Limit.BROKER, pytest.approx(50))
    assert model.predict(2).limit is Limit.BROKER


def test_fit_needs_a_one_process_run_and_a_cost() -> None:
    with pytest.raises(ValueError, match="'fan' has no one-process measurement"):
        fit(RATES, ShapeRun("fan", 998, NODE, {2: 200.0}))
    with pytest.raises(ValueError, match="instructions per node must be positive"):
        fit(RATES, ShapeRun("fan", 998, PerNode(0, 1, 1), {1: 200.0}))
    with pytest.raises(ValueError, match="at least one core"):
        fit(Rates(0, 1e9, 1, 1), ShapeRun("fan", 998, NODE, {1: 200.0}))


def test_fleet_needs_scale_with_the_rate() -> None:
    assumptions = {
        "server_core_instructions_per_s": 2.5e9,
        "pg_commits_per_core": 1000.0,
        "redis_commands_per_shard": 80_000.0,
    }
    thousand = fleet_needs(NODE, 1000, **assumptions)
    assert thousand.worker_cores == pytest.approx(1000 * 5e6 / 2.5e9)  # 2
    assert thousand.pg_commits_per_s == pytest.approx(2000)
    assert thousand.pg_cores == pytest.approx(2)
    assert thousand.redis_commands_per_s == pytest.approx(10_000)
    assert thousand.redis_shards == 1
    assert thousand.broker_commands_per_s == pytest.approx(4000)
    assert thousand.broker_share == pytest.approx(0.05)
    ten_thousand = fleet_needs(NODE, 10_000, **assumptions)
    assert ten_thousand.worker_cores == pytest.approx(20)
    assert ten_thousand.redis_shards == 2  # 100,000 commands/s over 80,000 a shard
    assert ten_thousand.broker_share == pytest.approx(0.5)
