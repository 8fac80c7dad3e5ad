package io.meterly.billing.scheduler;

import io.meterly.billing.invoices.InvoiceRunService;
import java.time.YearMonth;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

@Component
public class InvoiceRunScheduler {
    private static final Logger log = LoggerFactory.getLogger(InvoiceRunScheduler.class);

    private final RedissonClient redisson;
    private final InvoiceRunService runs;
    private final DueAccounts dueAccounts;

    public InvoiceRunScheduler(RedissonClient redisson, InvoiceRunService runs, DueAccounts dueAccounts) {
        this.redisson = redisson;
        this.runs = runs;
        this.dueAccounts = dueAccounts;
    }

    @Scheduled(cron = "0 * * * * *")
    public void tick() {
        YearMonth period = YearMonth.now().minusMonths(1);
        for (String accountId : dueAccounts.withoutInvoice(period)) {
            RLock lock = redisson.getLock("invoice-run:" + accountId + ":" + period);
            try {
                if (!lock.tryLock(0, 30, TimeUnit.SECONDS)) {
                    continue;
                }
                try {
                    runs.run(accountId, period);
                } finally {
                    lock.unlock();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                log.error("invoice run failed account={} period={}", accountId, period, e);
            }
        }
    }
}
