"""CVRP with time windows on OR-Tools' routing solver."""
import logging
import time

from ortools.constraint_solver import pywrapcp, routing_enums_pb2

from .problem import Problem

log = logging.getLogger("optimizer.solver")

STATUS = {
    0: "ROUTING_NOT_SOLVED", 1: "ROUTING_SUCCESS", 2: "ROUTING_PARTIAL_SUCCESS_LOCAL_OPTIMUM_NOT_REACHED",
    3: "ROUTING_FAIL", 4: "ROUTING_FAIL_TIMEOUT", 5: "ROUTING_INVALID", 6: "ROUTING_INFEASIBLE", 7: "ROUTING_OPTIMAL",
}


def solve(p: Problem, time_limit_s: int):
    manager = pywrapcp.RoutingIndexManager(len(p.demands), len(p.vehicle_capacities), 0)
    routing = pywrapcp.RoutingModel(manager)

    transit = routing.RegisterTransitCallback(lambda i, j: p.time_matrix[manager.IndexToNode(i)][manager.IndexToNode(j)])
    routing.SetArcCostEvaluatorOfAllVehicles(transit)
    routing.AddDimension(transit, 60, 24 * 60, False, "Time")
    time_dim = routing.GetDimensionOrDie("Time")
    for node, (start, end) in enumerate(p.windows[1:], 1):
        time_dim.CumulVar(manager.NodeToIndex(node)).SetRange(start, end)

    demand = routing.RegisterUnaryTransitCallback(lambda i: p.demands[manager.IndexToNode(i)])
    routing.AddDimensionWithVehicleCapacity(demand, 0, p.vehicle_capacities, True, "Load")

    # The depot can only load out so many pallets per wave: no vehicle may
    # leave with more than the depot's per-wave capacity.
    routing.AddDimension(demand, 0, p.depot_capacity, True, "DepotLoad")

    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    params.local_search_metaheuristic = routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
    params.time_limit.seconds = time_limit_s

    started = time.monotonic()
    solution = routing.SolveWithParameters(params)
    status = STATUS.get(routing.status(), str(routing.status()))
    took = time.monotonic() - started
    if solution is None:
        log.warning("no solution region=%s status=%s after %.1fs", p.region, status, took)
        return None, status
    log.info("solved region=%s routes=%d cost=%d in %.1fs", p.region, _used(routing, solution, len(p.vehicle_capacities)), solution.ObjectiveValue(), took)
    return solution, status


def _used(routing, solution, n):
    return sum(1 for v in range(n) if not routing.IsEnd(solution.Value(routing.NextVar(routing.Start(v)))))
