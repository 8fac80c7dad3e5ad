package co.freshcart.pricing;

import co.freshcart.pricing.catalog.PriceRepository;
import co.freshcart.pricing.catalog.SkuPrice;
import co.freshcart.pricing.rules.PromotionEngine;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;

@Component
public class BasketPricer {

  private final PriceRepository prices;
  private final PromotionEngine promotions;

  public BasketPricer(PriceRepository prices, PromotionEngine promotions) {
    this.prices = prices;
    this.promotions = promotions;
  }

  public PricedBasket price(Basket basket) {
    Map<String, SkuPrice> bySku = prices.findAllBySku(basket.skus());
    BigDecimal subtotal = BigDecimal.ZERO;
    List<PricedLine> lines = new java.util.ArrayList<>();
    for (BasketLine line : basket.lines()) {
      SkuPrice p = bySku.get(line.sku());
      BigDecimal amount = p.unitPrice().multiply(BigDecimal.valueOf(line.quantity()));
      lines.add(new PricedLine(line.sku(), line.quantity(), p.unitPrice(), amount));
      subtotal = subtotal.add(amount);
    }
    BigDecimal discount = promotions.discountFor(basket, lines);
    return new PricedBasket(lines, subtotal, discount, subtotal.subtract(discount).setScale(2, RoundingMode.HALF_UP));
  }
}
