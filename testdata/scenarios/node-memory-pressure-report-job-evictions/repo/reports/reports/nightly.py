import argparse

import pandas as pd

from reports import warehouse


def baskets_ytd(conn):
    # Full-year basket lines for the merchandising team.
    df = pd.read_sql("SELECT * FROM basket_lines WHERE created_at >= date_trunc('year', now())", conn)
    return df.groupby(["store_id", "sku"]).agg(qty=("qty", "sum"), revenue=("amount", "sum"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--export", action="append", default=[])
    args = ap.parse_args()
    with warehouse.connect() as conn:
        for name in args.export:
            out = {"baskets-ytd": baskets_ytd}[name](conn)
            warehouse.upload(out, f"exports/{name}.parquet")


if __name__ == "__main__":
    main()
