package com.inkwell.esign.envelopes;

import com.inkwell.esign.auth.AccountContext;
import com.inkwell.esign.common.PageResponse;
import java.util.Comparator;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/v2/envelopes")
public class EnvelopeController {

    private static final int MAX_PAGE_SIZE = 200;

    private final EnvelopeService envelopeService;
    private final AccountContext accountContext;

    public EnvelopeController(EnvelopeService envelopeService, AccountContext accountContext) {
        this.envelopeService = envelopeService;
        this.accountContext = accountContext;
    }

    @GetMapping
    public PageResponse<EnvelopeSummary> list(
            @RequestParam(defaultValue = "0") int page,
            @RequestParam(defaultValue = "50") int size,
            @RequestParam(required = false) EnvelopeStatus status,
            @RequestParam(defaultValue = "signer_status") String sort) {
        int pageSize = Math.min(Math.max(size, 1), MAX_PAGE_SIZE);
        List<EnvelopeSummary> all = envelopeService.summariesFor(accountContext.accountId(), status);
        all.sort(comparatorFor(sort));
        int from = page * pageSize;
        int to = from + pageSize;
        List<EnvelopeSummary> slice = all.subList(from, to);
        return new PageResponse<>(slice, page, pageSize, all.size());
    }

    @GetMapping("/{id}")
    public EnvelopeDetail get(@PathVariable String id) {
        return envelopeService.detail(accountContext.accountId(), id);
    }

    private static Comparator<EnvelopeSummary> comparatorFor(String sort) {
        return switch (sort) {
            case "signer_status" -> Comparator.comparing(EnvelopeSummary::pendingSigners).reversed()
                    .thenComparing(EnvelopeSummary::updatedAt, Comparator.reverseOrder());
            case "created" -> Comparator.comparing(EnvelopeSummary::createdAt, Comparator.reverseOrder());
            default -> Comparator.comparing(EnvelopeSummary::updatedAt, Comparator.reverseOrder());
        };
    }
}
