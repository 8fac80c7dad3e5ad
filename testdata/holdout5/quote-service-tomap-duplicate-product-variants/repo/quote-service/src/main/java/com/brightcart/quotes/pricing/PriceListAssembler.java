package com.brightcart.quotes.pricing;

import com.brightcart.quotes.api.QuoteLine;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

@Component
public class PriceListAssembler {

    private static final Logger log = LoggerFactory.getLogger(PriceListAssembler.class);

    private final PriceRepository prices;
    private final ListPriceClient listPrices;

    public PriceListAssembler(PriceRepository prices, ListPriceClient listPrices) {
        this.prices = prices;
        this.listPrices = listPrices;
    }

    public PriceList forContract(String contractId, List<QuoteLine> lines) {
        List<PriceRow> rows = prices.findByContract(contractId);
        Map<String, PriceRow> byProduct = rows.stream()
                .collect(Collectors.toMap(PriceRow::productId, Function.identity()));
        List<PricedLine> priced = new ArrayList<>(lines.size());
        for (QuoteLine line : lines) {
            PriceRow row = byProduct.get(line.productId());
            BigDecimal unit = row != null ? row.netPrice() : listPrices.listPrice(line.productId());
            if (row == null) {
                log.debug("no contract price for {} in {}, using list price", line.productId(), contractId);
            }
            priced.add(new PricedLine(line, unit, unit.multiply(BigDecimal.valueOf(line.quantity()))));
        }
        return new PriceList(contractId, priced);
    }
}
