"""CI flake (pytest, pytest-randomly): a test leaks a decimal context change; another test fails only when it runs after it. Logs only."""
import datetime as dt

from sg import *

NAME = "invoicing-ci-test-order-dependency"


def build():
    sc = Scenario(NAME, "2026-11-24T10:15:00Z", """
        The invoicing service's CI job fails intermittently (5 of the last 11 runs on main) in
        tests/test_rounding.py::test_vat_rounding_half_up, which passes locally. tests/test_export.py::
        test_large_totals sets decimal.getcontext().prec = 6 to mimic the legacy exporter and never restores it;
        pytest-randomly shuffles test order per run, and whenever test_large_totals runs first in the same worker
        the product 123.4548 is first rounded to 6 significant digits (123.455) and then half-up to 123.46
        instead of 123.45. No production impact and no code change correlates (failing and passing runs share the
        same commits). Fix: use
        decimal.localcontext() in the test (or a fixture that restores the context). The flaky network test in
        test_webhooks (pinned skip) and the runner disk warnings are unrelated.""", repo="ledgerline/invoicing")

    exp = "tests/test_export.py"
    sc.file(exp, """
        import decimal
        from decimal import Decimal

        from invoicing.export import legacy_csv_total


        def test_large_totals():
            # The legacy exporter ran with 6 significant digits; reproduce its output.
            decimal.getcontext().prec = 6
            assert legacy_csv_total([Decimal("999999.5"), Decimal("0.7")]) == Decimal("1.00000E+6")


        def test_empty_export():
            assert legacy_csv_total([]) == Decimal("0")
        """)
    rnd = "tests/test_rounding.py"
    sc.file(rnd, """
        from decimal import Decimal

        from invoicing.money import vat_amount


        def test_vat_rounding_half_up():
            # 7% VAT on 1,763.64 = 123.4548 -> 123.45 (half-up at the cent)
            assert vat_amount(Decimal("1763.64"), Decimal("0.07")) == Decimal("123.45")


        def test_zero_rate():
            assert vat_amount(Decimal("100.00"), Decimal("0")) == Decimal("0.00")
        """)
    money = "invoicing/money.py"
    sc.file(money, """
        from decimal import ROUND_HALF_UP, Decimal

        CENT = Decimal("0.01")


        def vat_amount(net: Decimal, rate: Decimal) -> Decimal:
            return (net * rate).quantize(CENT, rounding=ROUND_HALF_UP)
        """)
    sc.file("pytest.ini", """
        [pytest]
        addopts = -p randomly -n 4 --dist loadfile
        testpaths = tests
        """)
    sc.file(".github/workflows/ci.yaml", """
        name: ci
        on: [push, pull_request]
        jobs:
          test:
            runs-on: [self-hosted, linux, x64]
            steps:
              - uses: actions/checkout@v4
              - uses: actions/setup-python@v5
                with:
                  python-version: "3.12"
              - run: pip install -r requirements-dev.txt
              - run: pytest
        """)
    L = sc.line(exp, "decimal.getcontext().prec = 6")
    sc.commit("2026-11-24T09:41:02Z", ("Ruth Adler", "ruth@ledgerline.io", "radler"), "ci: run tests with 4 xdist workers",
              [("pytest.ini", "addopts = -p randomly", "addopts = -p randomly -n 4 --dist loadfile")], merged_by_github=True)
    sc.commit("2026-11-20T15:12:19Z", ("Jae-won Park", "jaewon@ledgerline.io", "jwpark"), "export: reproduce legacy 6-digit totals in tests",
              [(exp, None, None)], merged_by_github=True)

    runs = [("09:02", "a81f2c0", 19337, False, 8812), ("08:31", "a81f2c0", 22101, True, 41234), ("08:02", "5d0e7b9", 30551, False, 51010),
            ("07:35", "5d0e7b9", 7810, True, 1298), ("06:40", "5d0e7b9", 11922, False, 62213), ("2026-11-23T17:20:00Z", "c3b9a11", 4419, True, 33310),
            ("2026-11-23T16:05:00Z", "c3b9a11", 15873, False, 909), ("2026-11-23T15:30:00Z", "c3b9a11", 27766, False, 55401),
            ("09:44", "e2d4f61", 38812, True, 7741), ("09:58", "e2d4f61", 12004, True, 20118), ("10:06", "e2d4f61", 5531, False, 3390)]
    runs = sorted(runs, key=lambda r: sc.at(r[0]))
    for start_s, sha, run_id, fail, seed in runs:
        t = sc.at(start_s)
        runner = sc.rng.choice(["gha-runner-linux-7f2kq", "gha-runner-linux-9xw4d", "gha-runner-linux-m3b8z"])
        lab = {"job": "ci/github-actions-runner", "runner": runner, "repo": "ledgerline/invoicing", "workflow": "ci", "level": "info"}
        lines = [f"Run pytest",
                 f"Using --randomly-seed={seed}",
                 "============================= test session starts ==============================",
                 "platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0",
                 f"rootdir: /home/runner/_work/invoicing/invoicing",
                 "plugins: randomly-3.15.0, xdist-3.6.1, cov-5.0.0",
                 "created: 4/4 workers",
                 "4 workers [212 items]"]
        for i, l in enumerate(lines):
            sc.log(lab, t + dt.timedelta(seconds=40 + i * 0.01), l)
        end = t + dt.timedelta(seconds=40 + sc.rng.uniform(55, 80))
        if fail:
            fl = [("error", "[gw2] FAILED tests/test_rounding.py::test_vat_rounding_half_up"),
                  ("error", "=================================== FAILURES ==================================="),
                  ("error", "__________________________ test_vat_rounding_half_up ___________________________"),
                  ("error", "[gw2] linux -- Python 3.12.7 /opt/hostedtoolcache/Python/3.12.7/x64/bin/python\n\n"
                            "    def test_vat_rounding_half_up():\n"
                            "        # 7% VAT on 1,763.64 = 123.4548 -> 123.45 (half-up at the cent)\n"
                            '>       assert vat_amount(Decimal("1763.64"), Decimal("0.07")) == Decimal("123.45")\n'
                            "E       AssertionError: assert Decimal('123.46') == Decimal('123.45')\n"
                            "E        +  where Decimal('123.46') = vat_amount(Decimal('1763.64'), Decimal('0.07'))\n\n"
                            "tests/test_rounding.py:8: AssertionError"),
                  ("error", "=========================== short test summary info ============================"),
                  ("error", "FAILED tests/test_rounding.py::test_vat_rounding_half_up - AssertionError: assert Decimal('123.46') == Decimal('123.45')"),
                  ("error", f"======================== 1 failed, 208 passed, 3 skipped in {sc.rng.uniform(50, 75):.2f}s ========================"),
                  ("error", "##[error]Process completed with exit code 1.")]
            for i, (lvl, l) in enumerate(fl):
                sc.log({**lab, "level": lvl}, end - dt.timedelta(seconds=1) + dt.timedelta(milliseconds=10 * i), l)
        else:
            sc.log(lab, end, f"======================= 209 passed, 3 skipped in {sc.rng.uniform(50, 75):.2f}s =======================")
        sc.log(lab, end + dt.timedelta(seconds=1), f"ci run {run_id} for {sha} finished: {'failure' if fail else 'success'}")
        sc.log({**lab, "level": "warn"}, t + dt.timedelta(seconds=38), "SKIPPED [1] tests/test_webhooks.py:41: flaky against sandbox, see INV-771")
        if sc.rng.random() < 0.5:
            sc.log({**lab, "level": "warn"}, t + dt.timedelta(seconds=2), f"##[warning]You are running out of disk space. The runner will stop working when the machine runs out of disk space. Free space left: {sc.rng.randint(400, 900)} MB")

    sc.trigger = {"mention": "invoicing CI on main is flaky again, test_vat_rounding_half_up fails maybe 1 in 3 runs and passes locally every time. can you figure out why?"}
    sc.config = {"repo": "ledgerline/invoicing", "log_service_label": "job", "service_name": "invoicing"}
    sc.truth = {"bucket": "flake", "service": "invoicing", "error_type": "runtime_error", "file": exp, "line": L, "line_tolerance": 3,
                "fix_keywords": ["localcontext", "getcontext", "prec", "test order", "fixture"]}
    return sc
