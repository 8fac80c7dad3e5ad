









def price_for(product):
    base = product['attributes']['unit_price']
    return base
