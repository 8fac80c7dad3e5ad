package com.inkwell.esign.envelopes;

import java.util.ArrayList;
import java.util.List;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class EnvelopeService {

    private final EnvelopeRepository repository;
    private final SignerRepository signers;

    public EnvelopeService(EnvelopeRepository repository, SignerRepository signers) {
        this.repository = repository;
        this.signers = signers;
    }

    /** All envelope summaries of an account with their pending signer counts (computed, not stored). */
    @Transactional(readOnly = true)
    public List<EnvelopeSummary> summariesFor(String accountId, EnvelopeStatus status) {
        List<EnvelopeSummary> out = new ArrayList<>();
        for (EnvelopeRow row : repository.findByAccount(accountId, status)) {
            out.add(EnvelopeSummary.of(row, signers.countPending(row.id())));
        }
        return out;
    }

    @Transactional(readOnly = true)
    public EnvelopeDetail detail(String accountId, String id) {
        return repository.findDetail(accountId, id).orElseThrow(() -> new EnvelopeNotFoundException(id));
    }
}
