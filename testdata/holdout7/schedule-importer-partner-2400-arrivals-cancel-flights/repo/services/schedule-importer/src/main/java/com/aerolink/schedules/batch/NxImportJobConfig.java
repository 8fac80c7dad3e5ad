package com.aerolink.schedules.batch;

import org.springframework.batch.core.Job;
import org.springframework.batch.core.Step;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

@Configuration
public class NxImportJobConfig {

    /**
     * importNx: read the partner feed, upsert flights.
     * syncNx: every flight of the feed window that was not written by importNx
     *         is no longer operated by the partner and is marked CANCELLED.
     */
    @Bean
    public Job nxScheduleImport(JobRepository repo, Step importNx, Step syncNx) {
        return new JobBuilder("nxScheduleImport", repo).start(importNx).next(syncNx).build();
    }

    @Bean
    public Step importNx(JobRepository repo, PlatformTransactionManager tx, NxFeedReader reader,
                         NxFlightProcessor processor, ScheduleWriter writer, LoggingSkipListener skips) {
        return new StepBuilder("importNx", repo)
                .<com.aerolink.schedules.feed.NxFlightRecord, com.aerolink.schedules.model.ScheduledFlight>chunk(500, tx)
                .reader(reader)
                .processor(processor)
                .writer(writer)
                .faultTolerant()
                .skip(java.time.format.DateTimeParseException.class)
                .skip(IllegalArgumentException.class)
                .skipLimit(1000)
                .listener(skips)
                .build();
    }

    @Bean
    public Step syncNx(JobRepository repo, PlatformTransactionManager tx, CancelMissingTasklet cancelMissing) {
        return new StepBuilder("syncNx", repo).tasklet(cancelMissing, tx).build();
    }
}
