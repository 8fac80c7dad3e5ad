package com.harbormutual.claims.export;

import com.harbormutual.claims.model.Claim;
import com.harbormutual.claims.model.ClaimDocument;
import com.harbormutual.claims.repo.ClaimRepository;
import com.harbormutual.claims.repo.ExportJobRepository;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.util.UUID;

@Service
public class ExportService {
    private static final Logger log = LoggerFactory.getLogger(ExportService.class);

    private final ClaimRepository claims;
    private final ExportJobRepository jobs;
    private final PdfPackWriter writer;
    private final ExportService self;

    public ExportService(ClaimRepository claims, ExportJobRepository jobs, PdfPackWriter writer,
                         @org.springframework.context.annotation.Lazy ExportService self) {
        this.claims = claims;
        this.jobs = jobs;
        this.writer = writer;
        this.self = self;
    }

    /** Returns immediately; the pack is built on the export executor (large claims took > 60s). */
    @Transactional(readOnly = true)
    public ExportJob export(UUID claimId, String requestedBy) {
        Claim claim = claims.findById(claimId).orElseThrow(() -> new ClaimNotFoundException(claimId));
        ExportJob job = jobs.save(ExportJob.pending(claimId, requestedBy));
        self.buildPack(job, claim);
        return job;
    }

    @Async("exportExecutor")
    public void buildPack(ExportJob job, Claim claim) {
        try {
            PdfPackWriter.Pack pack = writer.start(job.getId(), claim.getReference());
            for (ClaimDocument doc : claim.getDocuments()) {
                pack.add(doc.getStorageKey(), doc.getTitle());
            }
            job.complete(pack.finish());
            jobs.save(job);
            log.info("export pack ready job={} claim={} documents={}", job.getId(), claim.getReference(), pack.size());
        } catch (RuntimeException e) {
            log.error("export pack failed job={} claim={}", job.getId(), claim.getReference(), e);
            job.fail(e.getClass().getSimpleName());
            jobs.save(job);
        }
    }
}
