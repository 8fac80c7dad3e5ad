package com.brightcart.quotes.pricing;

import java.math.BigDecimal;

/** One negotiated price of a contract; one row per SKU (size/colour variants have their own SKU). */
public record PriceRow(String sku, String productId, BigDecimal netPrice) {
}
