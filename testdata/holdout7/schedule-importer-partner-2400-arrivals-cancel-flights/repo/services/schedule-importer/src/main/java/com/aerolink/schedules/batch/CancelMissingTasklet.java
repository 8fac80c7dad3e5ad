package com.aerolink.schedules.batch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.StepContribution;
import org.springframework.batch.core.scope.context.ChunkContext;
import org.springframework.batch.core.step.tasklet.Tasklet;
import org.springframework.batch.repeat.RepeatStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

@Component
public class CancelMissingTasklet implements Tasklet {

    private static final Logger log = LoggerFactory.getLogger(CancelMissingTasklet.class);
    private final JdbcTemplate jdbc;

    public CancelMissingTasklet(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public RepeatStatus execute(StepContribution contribution, ChunkContext ctx) {
        long runId = ctx.getStepContext().getJobInstanceId();
        int n = jdbc.update("""
                UPDATE flight_schedule SET status = 'CANCELLED', cancelled_by_run = ?
                 WHERE carrier = 'NX' AND status = 'SCHEDULED'
                   AND operating_date BETWEEN CURRENT_DATE AND CURRENT_DATE + INTERVAL 330 DAY
                   AND last_seen_run <> ?
                """, runId, runId);
        log.info("Marked {} NX flights CANCELLED (absent from feed run {})", n, runId);
        return RepeatStatus.FINISHED;
    }
}
