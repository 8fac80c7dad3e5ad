"""Nightly import of depot master data from the WMS export (CSV on the SFTP drop)."""
import csv
import logging

log = logging.getLogger("masterdata.depots")

FIELDS = ("code", "region", "name", "dock_doors", "capacity_pallets", "opens", "closes")


def import_depots(conn, path: str) -> int:
    changed = 0
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter=";"):
            rec = {
                "code": row["depot_code"].strip(),
                "region": row["region"].strip(),
                "name": row["depot_name"].strip(),
                "dock_doors": int(row["dock_doors"] or 0),
                "capacity_pallets": int(row["outbound_capacity"] or 0),
                "opens": row["opens"],
                "closes": row["closes"],
            }
            old = conn.execute("SELECT capacity_pallets FROM depots WHERE code = %s", (rec["code"],)).fetchone()
            conn.execute(
                """INSERT INTO depots (code, region, name, dock_doors, capacity_pallets, opens, closes, active)
                   VALUES (%(code)s, %(region)s, %(name)s, %(dock_doors)s, %(capacity_pallets)s, %(opens)s, %(closes)s, true)
                   ON CONFLICT (code) DO UPDATE SET region = EXCLUDED.region, name = EXCLUDED.name,
                     dock_doors = EXCLUDED.dock_doors, capacity_pallets = EXCLUDED.capacity_pallets,
                     opens = EXCLUDED.opens, closes = EXCLUDED.closes""",
                rec,
            )
            if old and old[0] != rec["capacity_pallets"]:
                log.info("depot %s: capacity_pallets %s -> %s", rec["code"], old[0], rec["capacity_pallets"])
            changed += 1
    return changed
