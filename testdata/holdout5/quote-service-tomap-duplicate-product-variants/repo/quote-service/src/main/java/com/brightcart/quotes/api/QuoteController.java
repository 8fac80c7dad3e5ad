package com.brightcart.quotes.api;

import com.brightcart.quotes.pricing.PriceListAssembler;
import org.springframework.web.bind.annotation.*;

@RestController
@RequestMapping("/v2/quotes")
public class QuoteController {
    private final PriceListAssembler assembler;
    private final QuoteRenderer renderer;

    public QuoteController(PriceListAssembler assembler, QuoteRenderer renderer) {
        this.assembler = assembler;
        this.renderer = renderer;
    }

    @PostMapping
    public QuoteResponse create(@RequestBody QuoteRequest req) {
        var priceList = assembler.forContract(req.contractId(), req.lines());
        return renderer.render(req, priceList);
    }
}
