def mask_iban(iban: str | None) -> str:
    """Keep country, check digits and the last four characters."""
    if not iban:
        return ""
    iban = iban.replace(" ", "")
    return iban[:4] + "*" * (len(iban) - 8) + iban[-4:]
