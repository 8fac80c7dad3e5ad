"""Loads one region's planning problem from the routing database."""
import logging
from dataclasses import dataclass

import psycopg

log = logging.getLogger("optimizer.problem")


@dataclass
class Problem:
    region: str
    depot_code: str
    depot_capacity: int          # pallets the depot can load out per wave
    vehicle_capacities: list[int]
    demands: list[int]           # index 0 is the depot
    time_matrix: list[list[int]]
    windows: list[tuple[int, int]]


def load_problem(conn: psycopg.Connection, region: str, plan_date) -> Problem:
    depot = conn.execute(
        "SELECT code, capacity_pallets, lat, lon FROM depots WHERE region = %s AND active", (region,)
    ).fetchone()
    vehicles = conn.execute(
        "SELECT capacity_pallets FROM vehicles WHERE home_depot = %s AND available_on @> %s::date", (depot[0], plan_date)
    ).fetchall()
    stops = conn.execute(
        "SELECT id, pallets, window_start, window_end FROM stops WHERE region = %s AND plan_date = %s AND status = 'open'",
        (region, plan_date),
    ).fetchall()
    p = Problem(
        region=region,
        depot_code=depot[0],
        depot_capacity=depot[1],
        vehicle_capacities=[v[0] for v in vehicles],
        demands=[0] + [s[1] for s in stops],
        time_matrix=_matrix(conn, depot, stops),
        windows=[(0, 24 * 60)] + [(s[2], s[3]) for s in stops],
    )
    log.info(
        "loaded problem region=%s depot=%s depot_capacity=%d vehicles=%d stops=%d demand=%d",
        region, p.depot_code, p.depot_capacity, len(p.vehicle_capacities), len(stops), sum(p.demands),
    )
    return p


def _matrix(conn, depot, stops):
    from .matrix import travel_time_matrix
    return travel_time_matrix(conn, depot, stops)
