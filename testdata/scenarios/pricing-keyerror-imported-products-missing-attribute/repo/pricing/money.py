

def cents(x):
    return Decimal(x).quantize(CENT, ROUND_HALF_EVEN)
