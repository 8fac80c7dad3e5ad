"""Bank ledger: BigDecimal.divide without a MathContext after an interest-accrual change."""
import datetime as dt

from sg import *

NAME = "ledger-interest-nonterminating-divide"


def build():
    sc = Scenario(NAME, "2026-10-14T09:40:00Z", """
        The 07:52 commit (ledger-writer deployed 08:10) made PostingService accrue daily interest before
        every posting on interest-bearing accounts; InterestAccrualService.dailyRate divides the annual rate
        by 365 with BigDecimal.divide(BigDecimal) and no MathContext, which throws ArithmeticException
        (non-terminating decimal expansion) for every non-zero rate, so postings to savings accounts fail with
        500 while current accounts (rate 0) still work. payments-orchestrator retries and logs the loudest
        WARNs; the Kafka rebalance in ledger-writer at 08:10 is the rollout itself, the statement-api commit
        and the orchestrator restart at 03:12 are unrelated.""", repo="kestrel-bank/core-ledger")
    ns = "core-banking"
    gw = sc.svc("edge-envoy", ns, "proxy", pods=["edge-envoy-6c9f7d8b5-qwx2m"])
    orch = sc.svc("payments-orchestrator", ns, "go", version="2.31.4", runtime="go1.23.2", npods=2)
    led = sc.svc("ledger-writer", ns, "java", version="4.18.0", runtime="21.0.4+7-LTS", npods=3)
    led_old_hash = sc.pod_hash()
    deploy_t = sc.at("08:10:04")

    # ---------------- repo ----------------
    acc = "ledger-writer/src/main/java/com/kestrel/ledger/interest/InterestAccrualService.java"
    sc.file(acc, """
        package com.kestrel.ledger.interest;

        import com.kestrel.ledger.account.Account;
        import com.kestrel.ledger.account.AccountRepository;
        import java.math.BigDecimal;
        import java.math.RoundingMode;
        import java.time.Clock;
        import java.time.LocalDate;
        import java.time.temporal.ChronoUnit;
        import org.slf4j.Logger;
        import org.slf4j.LoggerFactory;
        import org.springframework.stereotype.Service;
        import org.springframework.transaction.annotation.Propagation;
        import org.springframework.transaction.annotation.Transactional;

        /**
         * Accrues interest on interest-bearing accounts (actual/365 day count).
         * Accrued amounts are kept at 8 decimal places and only rounded to the
         * currency's minor unit when interest is capitalised at month end.
         */
        @Service
        public class InterestAccrualService {

          private static final Logger log = LoggerFactory.getLogger(InterestAccrualService.class);
          private static final BigDecimal DAYS_PER_YEAR = BigDecimal.valueOf(365);
          private static final int ACCRUAL_SCALE = 8;

          private final AccountRepository accounts;
          private final Clock clock;

          public InterestAccrualService(AccountRepository accounts, Clock clock) {
            this.accounts = accounts;
            this.clock = clock;
          }

          /** Accrues interest from the last accrual date up to (excluding) {@code until}. */
          @Transactional(propagation = Propagation.MANDATORY)
          public BigDecimal accrueUntil(Account account, LocalDate until) {
            if (account.getAnnualRate().signum() == 0) {
              return BigDecimal.ZERO;
            }
            LocalDate from = account.getLastAccrualDate();
            long days = ChronoUnit.DAYS.between(from, until);
            if (days <= 0) {
              return BigDecimal.ZERO;
            }
            BigDecimal accrued = account.getBalance()
                .multiply(dailyRate(account.getAnnualRate()))
                .multiply(BigDecimal.valueOf(days))
                .setScale(ACCRUAL_SCALE, RoundingMode.HALF_EVEN);
            account.addAccruedInterest(accrued);
            account.setLastAccrualDate(until);
            log.debug("accrued {} on {} for {} days", accrued, account.getId(), days);
            return accrued;
          }

          /** Annual percentage rate (e.g. 3.25) to a daily fraction. */
          BigDecimal dailyRate(BigDecimal annualRatePercent) {
            BigDecimal annual = annualRatePercent.movePointLeft(2);
            return annual.divide(DAYS_PER_YEAR);
          }

          public LocalDate today() {
            return LocalDate.now(clock);
          }
        }
        """)
    post = "ledger-writer/src/main/java/com/kestrel/ledger/posting/PostingService.java"
    sc.file(post, """
        package com.kestrel.ledger.posting;

        import com.kestrel.ledger.account.Account;
        import com.kestrel.ledger.account.AccountRepository;
        import com.kestrel.ledger.account.AccountNotFoundException;
        import com.kestrel.ledger.events.LedgerEventPublisher;
        import com.kestrel.ledger.interest.InterestAccrualService;
        import java.math.BigDecimal;
        import java.util.UUID;
        import org.springframework.stereotype.Service;
        import org.springframework.transaction.annotation.Transactional;

        @Service
        public class PostingService {

          private final AccountRepository accounts;
          private final PostingRepository postings;
          private final InterestAccrualService interest;
          private final LedgerEventPublisher events;

          public PostingService(AccountRepository accounts, PostingRepository postings,
              InterestAccrualService interest, LedgerEventPublisher events) {
            this.accounts = accounts;
            this.postings = postings;
            this.interest = interest;
            this.events = events;
          }

          @Transactional
          public Posting post(UUID accountId, PostingRequest req) {
            Account account = accounts.findForUpdate(accountId)
                .orElseThrow(() -> new AccountNotFoundException(accountId));
            if (postings.existsByIdempotencyKey(req.idempotencyKey())) {
              return postings.findByIdempotencyKey(req.idempotencyKey());
            }
            // Interest accrues on the balance before the movement.
            interest.accrueUntil(account, interest.today());
            BigDecimal newBalance = account.getBalance().add(req.signedAmount());
            if (newBalance.signum() < 0 && !account.isOverdraftAllowed()) {
              throw new InsufficientFundsException(accountId, req.signedAmount());
            }
            account.setBalance(newBalance);
            Posting p = postings.save(Posting.from(account, req, newBalance));
            events.postingCreated(p);
            return p;
          }
        }
        """)
    ctl = "ledger-writer/src/main/java/com/kestrel/ledger/posting/PostingController.java"
    sc.file(ctl, """
        package com.kestrel.ledger.posting;

        import jakarta.validation.Valid;
        import java.util.UUID;
        import org.springframework.http.HttpStatus;
        import org.springframework.web.bind.annotation.PathVariable;
        import org.springframework.web.bind.annotation.PostMapping;
        import org.springframework.web.bind.annotation.RequestBody;
        import org.springframework.web.bind.annotation.RequestMapping;
        import org.springframework.web.bind.annotation.ResponseStatus;
        import org.springframework.web.bind.annotation.RestController;

        @RestController
        @RequestMapping("/v1/accounts")
        public class PostingController {

          private final PostingService service;

          public PostingController(PostingService service) {
            this.service = service;
          }

          @PostMapping("/{accountId}/postings")
          @ResponseStatus(HttpStatus.CREATED)
          public PostingResponse createPosting(@PathVariable UUID accountId,
              @Valid @RequestBody PostingRequest request) {
            return PostingResponse.of(service.post(accountId, request));
          }
        }
        """)
    sc.file("ledger-writer/src/main/resources/application.yml", """
        spring:
          application:
            name: ledger-writer
          datasource:
            url: jdbc:postgresql://ledger-db.core-banking.svc:5432/ledger
            hikari:
              maximum-pool-size: 20
          kafka:
            bootstrap-servers: kafka-0.kafka:9092,kafka-1.kafka:9092,kafka-2.kafka:9092
            consumer:
              group-id: ledger-writer
        management:
          endpoints:
            web:
              exposure:
                include: health,prometheus
        ledger:
          accrual:
            day-count: ACT_365
        """)
    cli = "payments-orchestrator/internal/ledger/client.go"
    sc.file(cli, """
        package ledger

        import (
        	"bytes"
        	"context"
        	"encoding/json"
        	"fmt"
        	"net/http"
        	"time"

        	"github.com/kestrel-bank/core-ledger/payments-orchestrator/internal/retry"
        )

        // Client posts movements to ledger-writer.
        type Client struct {
        	base string
        	hc   *http.Client
        	rb   retry.Budget
        }

        func New(base string, rb retry.Budget) *Client {
        	return &Client{base: base, hc: &http.Client{Timeout: 5 * time.Second}, rb: rb}
        }

        // Post records one movement; 5xx are retried within the retry budget.
        func (c *Client) Post(ctx context.Context, accountID string, p Posting) (*Result, error) {
        	body, _ := json.Marshal(p)
        	var res Result
        	err := c.rb.Do(ctx, func(ctx context.Context) (bool, error) {
        		req, _ := http.NewRequestWithContext(ctx, http.MethodPost,
        			fmt.Sprintf("%s/v1/accounts/%s/postings", c.base, accountID), bytes.NewReader(body))
        		req.Header.Set("Content-Type", "application/json")
        		req.Header.Set("Idempotency-Key", p.IdempotencyKey)
        		resp, err := c.hc.Do(req)
        		if err != nil {
        			return true, err
        		}
        		defer resp.Body.Close()
        		if resp.StatusCode >= 500 {
        			return true, fmt.Errorf("ledger-writer: %s", resp.Status)
        		}
        		if resp.StatusCode >= 400 {
        			return false, decodeProblem(resp)
        		}
        		return false, json.NewDecoder(resp.Body).Decode(&res)
        	})
        	return &res, err
        }
        """)
    sc.file("statement-api/src/render/pdf.ts", """
        import PDFDocument from 'pdfkit';
        import { Statement } from '../model';

        const FONT = process.env.STATEMENT_FONT ?? 'Inter-Regular';

        export function renderStatement(st: Statement): PDFKit.PDFDocument {
          const doc = new PDFDocument({ size: 'A4', margin: 48 });
          doc.font(FONT).fontSize(10);
          doc.text(`Statement ${st.period}`, { align: 'right' });
          for (const line of st.lines) {
            doc.text(`${line.date}  ${line.description.padEnd(40)} ${line.amount}`);
          }
          return doc;
        }
        """)

    L = sc.line(acc, "return annual.divide(DAYS_PER_YEAR);")
    L_acc = sc.line(acc, ".multiply(dailyRate(account.getAnnualRate()))")
    L_post = sc.line(post, "interest.accrueUntil(account, interest.today());")
    L_ctl = sc.line(ctl, "return PostingResponse.of(service.post(accountId, request));")
    L_cli = sc.line(cli, 'return true, fmt.Errorf("ledger-writer: %s", resp.Status)')

    # ---------------- changes ----------------
    sc.commit("2026-10-14T08:31:10Z", ("Lena Vogt", "lena.vogt@kestrel-bank.eu", "lvogt"),
              "statement-api: make the statement font configurable (#2210)",
              [("statement-api/src/render/pdf.ts", "const FONT = 'Inter-Regular';",
                "const FONT = process.env.STATEMENT_FONT ?? 'Inter-Regular';")], merged_by_github=True)
    sc.commit("2026-10-14T07:52:44Z", ("Arjun Mehta", "arjun.mehta@kestrel-bank.eu", "amehta-kb"),
              """ledger: accrue interest before each posting (ACT/365)

              Interest used to be accrued by the nightly batch only, so a posting
              made during the day moved the balance the batch then accrued on.
              Accrue up to today inside the posting transaction instead.""",
              [(acc, """          /** Annual percentage rate (e.g. 3.25) to a daily fraction. */
          BigDecimal dailyRate(BigDecimal annualRatePercent) {
            return annualRatePercent.divide(BigDecimal.valueOf(36500), 10, RoundingMode.HALF_EVEN);
          }""", """          /** Annual percentage rate (e.g. 3.25) to a daily fraction. */
          BigDecimal dailyRate(BigDecimal annualRatePercent) {
            BigDecimal annual = annualRatePercent.movePointLeft(2);
            return annual.divide(DAYS_PER_YEAR);
          }"""),
               (post, """            BigDecimal newBalance""", """            // Interest accrues on the balance before the movement.
            interest.accrueUntil(account, interest.today());
            BigDecimal newBalance""")])
    sc.commit("2026-10-13T15:05:31Z", ("Sofia Brandt", "sofia.brandt@kestrel-bank.eu", "sbrandt"),
              "payments-orchestrator: retry ledger 5xx within a retry budget (#2198)",
              [(cli, """		if resp.StatusCode >= 500 {
			return false, fmt.Errorf("ledger-writer: %s", resp.Status)
		}""", """		if resp.StatusCode >= 500 {
			return true, fmt.Errorf("ledger-writer: %s", resp.Status)
		}""")], merged_by_github=True)

    # ---------------- traffic ----------------
    t0, t_end = sc.at("07:40"), sc.at("09:36")
    java_frames = "\n".join([
        "\tat java.base/java.math.BigDecimal.divide(BigDecimal.java:1780)",
        f"\tat com.kestrel.ledger.interest.InterestAccrualService.dailyRate(InterestAccrualService.java:{L})",
        f"\tat com.kestrel.ledger.interest.InterestAccrualService.accrueUntil(InterestAccrualService.java:{L_acc})",
        "\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)",
        "\tat java.base/java.lang.reflect.Method.invoke(Method.java:580)",
        "\tat org.springframework.aop.support.AopUtils.invokeJoinpointUsingReflection(AopUtils.java:355)",
        "\tat org.springframework.transaction.interceptor.TransactionInterceptor.invoke(TransactionInterceptor.java:119)",
        "\tat org.springframework.aop.framework.CglibAopProxy$DynamicAdvisedInterceptor.intercept(CglibAopProxy.java:720)",
        "\tat com.kestrel.ledger.interest.InterestAccrualService$$SpringCGLIB$$0.accrueUntil(<generated>)",
        f"\tat com.kestrel.ledger.posting.PostingService.post(PostingService.java:{L_post})",
        "\tat org.springframework.transaction.interceptor.TransactionAspectSupport.invokeWithinTransaction(TransactionAspectSupport.java:392)",
        "\tat com.kestrel.ledger.posting.PostingService$$SpringCGLIB$$0.post(<generated>)",
        f"\tat com.kestrel.ledger.posting.PostingController.createPosting(PostingController.java:{L_ctl})",
        "\tat org.springframework.web.method.support.InvocableHandlerMethod.doInvoke(InvocableHandlerMethod.java:255)",
        "\tat org.springframework.web.servlet.mvc.method.annotation.ServletInvocableHandlerMethod.invokeAndHandle(ServletInvocableHandlerMethod.java:118)",
        "\tat org.springframework.web.servlet.DispatcherServlet.doDispatch(DispatcherServlet.java:1089)",
        "\tat org.springframework.web.servlet.FrameworkServlet.processRequest(FrameworkServlet.java:1014)",
        "\tat org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:140)",
        "\tat org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:659)",
        "\tat java.base/java.lang.Thread.run(Thread.java:1583)"])
    exc_msg = "Non-terminating decimal expansion; no exact representable decimal result."
    stack = f"java.lang.ArithmeticException: {exc_msg}\n{java_frames}"

    led_new_pods = led.pods
    led_old_pods = [f"ledger-writer-{led_old_hash}-{sc.suffix()}" for _ in range(3)]
    lab = lambda svc, pod, lvl=None: {"app": svc, "namespace": ns, "pod": pod, **({"level": lvl} if lvl else {})}

    def led_pod(t):
        return sc.rng.choice(led_new_pods if t >= deploy_t + dt.timedelta(seconds=40) else led_old_pods)

    def transfer(t, savings):
        tr = sc.trace()
        start = us(t)
        fail = savings and t >= deploy_t + dt.timedelta(seconds=40)
        acct = sc.uuid()
        tx = sc.uuid()
        lp = led_pod(t)
        attempts = 3 if fail else 1
        total = 0
        spans_plan = []
        for a in range(attempts):
            d = sc.rng.randint(9_000, 16_000) if fail else sc.rng.randint(14_000, 38_000)
            spans_plan.append(d)
            total += d + (sc.rng.randint(100_000, 140_000) * (2 ** a) if fail and a < attempts - 1 else 0)
        total += 4_000
        code = 502 if fail else 201
        root = tr.span(gw, "ingress", start, total + 2_000, kind="server", err_mode="both" if fail else "otel",
                       error="" if fail else None,
                       tags={"component": "proxy", "node_id": "edge-envoy", "http.method": "POST",
                             "http.url": "https://api.kestrel-bank.eu/v2/transfers", "http.protocol": "HTTP/1.1",
                             "http.status_code": str(code), "upstream_cluster": "payments-orchestrator",
                             "guid:x-request-id": sc.uuid(), "response_flags": "-"})
        op = tr.span(orch, "POST /v2/transfers", start + 300, total, parent=root,
                     error=f"ledger post failed after {attempts} attempts: ledger-writer: 500 Internal Server Error" if fail else None,
                     tags=http_server("POST", "/v2/transfers", code, host="payments-orchestrator", port=8080,
                                      scope="go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp",
                                      **{"app.transfer.id": tx}))
        cur = start + 900
        lspans = []
        for a, d in enumerate(spans_plan):
            c = tr.span(orch, "POST", cur, d + 700, parent=op, kind="client",
                        error="500 Internal Server Error" if fail else None,
                        tags=http_client("POST", f"http://ledger-writer.core-banking.svc:8080/v1/accounts/{acct}/postings",
                                         500 if fail else 201, peer="ledger-writer",
                                         **({"http.request.resend_count": a} if a else {})))
            s = tr.span(led, "POST /v1/accounts/{accountId}/postings", cur + 350, d, parent=c, pod=lp,
                        error=exc_msg if fail else None,
                        tags=http_server("POST", "/v1/accounts/{accountId}/postings", 500 if fail else 201,
                                         target=f"/v1/accounts/{acct}/postings", host="ledger-writer", port=8080,
                                         scope="io.opentelemetry.tomcat-10.0",
                                         **({"error.type": "java.lang.ArithmeticException"} if fail else {})),
                        events=[exc_event(cur + 350 + d - 800, "java.lang.ArithmeticException", exc_msg, stack)] if fail else None)
            tr.span(led, "SELECT ledger.accounts", cur + 1_100, sc.rng.randint(900, 2_400), parent=s, kind="client",
                    tags=db("postgresql", "select a1_0.id,a1_0.annual_rate,a1_0.balance,a1_0.last_accrual_date,a1_0.overdraft_allowed from accounts a1_0 where a1_0.id=? for no key update",
                            "ledger", "ledger-db.core-banking.svc", 5432, "SELECT",
                            **{"db.collection.name": "accounts"}))
            if not fail:
                tr.span(led, "SELECT ledger.postings", cur + 4_000, sc.rng.randint(500, 1_500), parent=s, kind="client",
                        tags=db("postgresql", "select p1_0.id from postings p1_0 where p1_0.idempotency_key=? fetch first ? rows only",
                                "ledger", "ledger-db.core-banking.svc", 5432, "SELECT"))
                tr.span(led, "INSERT ledger.postings", cur + 7_000, sc.rng.randint(1_500, 4_000), parent=s, kind="client",
                        tags=db("postgresql", "insert into postings (account_id,amount,balance_after,created_at,idempotency_key,id) values (?,?,?,?,?,?)",
                                "ledger", "ledger-db.core-banking.svc", 5432, "INSERT"))
                tr.span(led, "ledger.postings publish", cur + d - 3_000, 2_200, parent=s, kind="producer",
                        tags={"messaging.system": "kafka", "messaging.destination.name": "ledger.postings",
                              "messaging.operation.type": "publish"})
            lspans.append((s, cur + 350 + d - 800))
            cur += d + 700 + (sc.rng.randint(100_000, 140_000) * (2 ** a) if fail else 0)
        # logs
        lt = from_us(start + 600)
        if fail:
            for a, (s, te) in enumerate(lspans):
                sp = s["spanID"]
                sc.log(lab("ledger-writer", lp, "error"), te,
                       f"{iso(from_us(te), 3)} ERROR 1 --- [ledger-writer] [nio-8080-exec-{sc.rng.randint(1, 40)}] [{tr.id}-{sp}] "
                       f"o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception "
                       f"[Request processing failed: java.lang.ArithmeticException: {exc_msg}] with root cause\n\n{stack}")
                if a < attempts - 1:
                    sc.log(lab("payments-orchestrator", op["_pod"], "warn"), from_us(te + 2_000),
                           f'time={iso(from_us(te + 2_000), 3)} level=WARN msg="ledger post failed, retrying" transfer_id={tx} account_id={acct} attempt={a + 1} error="ledger-writer: 500 Internal Server Error" backoff={100 * 2 ** a}ms trace_id={tr.id}')
            sc.log(lab("payments-orchestrator", op["_pod"], "error"), from_us(start + total),
                   f'time={iso(from_us(start + total), 3)} level=ERROR msg="transfer failed" transfer_id={tx} account_id={acct} error="ledger post failed after 3 attempts: ledger-writer: 500 Internal Server Error" status=502 trace_id={tr.id}')
        else:
            sc.log(lab("ledger-writer", lp, "info"), from_us(start + 20_000),
                   f"{iso(from_us(start + 20_000), 3)}  INFO 1 --- [ledger-writer] [nio-8080-exec-{sc.rng.randint(1, 40)}] [{tr.id}-{lspans[0][0]['spanID']}] "
                   f"c.k.ledger.posting.PostingService        : posting created account={acct} type={'savings' if savings else 'current'}")
            sc.log(lab("payments-orchestrator", op["_pod"], "info"), from_us(start + total),
                   f'time={iso(from_us(start + total), 3)} level=INFO msg="transfer completed" transfer_id={tx} status=201 duration_ms={total // 1000} trace_id={tr.id}')

    plan = [(t, sc.rng.random() < 0.45) for t in sc.times(t0, t_end, 16)]
    # make sure both kinds occur after the rollout
    plan += [(sc.at("08:14:12.5"), True), (sc.at("08:52:40"), True), (sc.at("09:21:05"), False), (sc.at("09:33:50"), True)]
    for t, savings in plan:
        transfer(t, savings)

    # background logs without traces (unsampled requests)
    for t in sc.times(t0, t_end, 90):
        lp = led_pod(t)
        after = t >= deploy_t + dt.timedelta(seconds=40)
        if after and sc.rng.random() < 0.2:
            sc.log(lab("ledger-writer", lp, "error"), t,
                   f"{iso(t, 3)} ERROR 1 --- [ledger-writer] [nio-8080-exec-{sc.rng.randint(1, 40)}] [] "
                   f"o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception "
                   f"[Request processing failed: java.lang.ArithmeticException: {exc_msg}] with root cause\n\n{stack}")
            op_pod = sc.rng.choice(orch.pods)
            for a in range(1, 3):
                sc.log(lab("payments-orchestrator", op_pod, "warn"), t + dt.timedelta(milliseconds=120 * a),
                       f'time={iso(t + dt.timedelta(milliseconds=120 * a), 3)} level=WARN msg="ledger post failed, retrying" transfer_id={sc.uuid()} account_id={sc.uuid()} attempt={a} error="ledger-writer: 500 Internal Server Error" backoff={100 * 2 ** (a - 1)}ms')
        else:
            sc.log(lab("ledger-writer", lp, "info"), t,
                   f"{iso(t, 3)}  INFO 1 --- [ledger-writer] [nio-8080-exec-{sc.rng.randint(1, 40)}] [] "
                   f"c.k.ledger.posting.PostingService        : posting created account={sc.uuid()} type=current")
    # rollout: startup and rebalance noise (decoy WARNs)
    for i, p in enumerate(led_new_pods):
        st = deploy_t + dt.timedelta(seconds=12 * i + 3)
        for off, lvl, logger, msg in [
            (0, "info", "c.k.ledger.LedgerWriterApplication", "Starting LedgerWriterApplication v4.18.0 using Java 21.0.4 with PID 1 (/app/app.jar started by app in /app)"),
            (9, "info", "o.s.b.w.embedded.tomcat.TomcatWebServer", "Tomcat started on port 8080 (http) with context path '/'"),
            (10, "warn", "o.a.k.c.c.internals.ConsumerCoordinator", "[Consumer clientId=consumer-ledger-writer-1, groupId=ledger-writer] Revoking previously assigned partitions [ledger.commands-0, ledger.commands-3]"),
            (11, "warn", "o.a.k.c.c.internals.ConsumerCoordinator", "[Consumer clientId=consumer-ledger-writer-1, groupId=ledger-writer] Request joining group due to: group is already rebalancing"),
            (14, "info", "c.k.ledger.LedgerWriterApplication", "Started LedgerWriterApplication in 13.882 seconds (process running for 14.61)")]:
            t = st + dt.timedelta(seconds=off)
            sc.log(lab("ledger-writer", p, lvl), t, f"{iso(t, 3)} {lvl.upper():>5} 1 --- [ledger-writer] [           main] [] {logger:<40} : {msg}")
    # statement-api noise
    sapi = sc.svc("statement-api", ns, "nodejs", npods=1)
    for t in sc.times(t0, t_end, 25):
        sc.log({"app": "statement-api", "namespace": ns, "pod": sapi.pods[0], "level": "warn"}, t,
               '{"level":"warn","time":"%s","msg":"font fallback","font":"Inter-Regular","reason":"glyph missing for U+20BF"}' % iso(t, 3))

    # ---------------- metrics ----------------
    m0, m1 = sc.at("07:30"), sc.at("09:39")
    after = lambda t: t >= deploy_t + dt.timedelta(seconds=60)
    base = {"job": "ledger-writer", "namespace": ns, "application": "ledger-writer", "method": "POST",
            "uri": "/v1/accounts/{accountId}/postings"}
    sc.counter({"__name__": "http_server_requests_seconds_count", **base, "status": "201", "outcome": "SUCCESS", "exception": "none"},
               m0, m1, lambda t: 14.0 * (0.55 if after(t) else 1.0), initial=18_331_204)
    sc.counter({"__name__": "http_server_requests_seconds_count", **base, "status": "500", "outcome": "SERVER_ERROR", "exception": "ArithmeticException"},
               sc.at("08:11"), m1, lambda t: 6.3 * 3)
    sc.counter({"__name__": "http_server_requests_seconds_count", **base, "status": "409", "outcome": "CLIENT_ERROR", "exception": "InsufficientFundsException"},
               m0, m1, lambda t: 0.08, initial=5_402)
    sc.counter({"__name__": "payments_transfers_total", "job": "payments-orchestrator", "namespace": ns, "result": "failed"},
               m0, m1, lambda t: 6.1 if after(t) else 0.02, initial=912)
    sc.counter({"__name__": "payments_transfers_total", "job": "payments-orchestrator", "namespace": ns, "result": "completed"},
               m0, m1, lambda t: 14.0 * (0.55 if after(t) else 1.0), initial=9_114_020)
    for p in led_new_pods:
        sc.gauge({"__name__": "jvm_memory_used_bytes", "job": "ledger-writer", "namespace": ns, "pod": p, "area": "heap", "id": "G1 Old Gen"},
                 deploy_t + dt.timedelta(minutes=1), m1, lambda t: 210e6 + 90e6 * ((t.minute % 17) / 17) + sc.rng.uniform(0, 1e7))
    sc.gauge({"__name__": "kafka_consumergroup_lag", "job": "kafka-exporter", "consumergroup": "ledger-writer", "topic": "ledger.commands", "partition": "0"},
             m0, m1, lambda t: 4_800 if deploy_t <= t < deploy_t + dt.timedelta(minutes=3) else sc.rng.randint(0, 40))

    # ---------------- kubernetes ----------------
    k = sc.k8s = K8s(sc)
    img = "eu.gcr.io/kestrel-prod/ledger-writer:4.18.0"
    ctr = container_spec("ledger-writer", img, 8080, env={"SPRING_PROFILES_ACTIVE": "prod", "JAVA_TOOL_OPTIONS": "-XX:MaxRAMPercentage=70 -javaagent:/otel/opentelemetry-javaagent.jar",
                                                         "OTEL_SERVICE_NAME": "ledger-writer"},
                         env_from=[{"secretRef": {"name": "ledger-db-credentials"}}],
                         requests={"cpu": "500m", "memory": "768Mi"}, limits={"memory": "1Gi"},
                         readiness=http_probe("/actuator/health/readiness", 8080, 5, 20),
                         liveness=http_probe("/actuator/health/liveness", 8080, 10, 60))
    nodes = ["ip-10-31-4-18.eu-west-1.compute.internal", "ip-10-31-5-201.eu-west-1.compute.internal", "ip-10-31-6-77.eu-west-1.compute.internal"]
    k.deployment(led, [ctr], 3, ts("2025-02-11T10:00:00Z"), deploy_t + dt.timedelta(seconds=50), 64,
                 labels={"app": "ledger-writer", "team": "ledger"})
    for i, p in enumerate(led_new_pods):
        k.pod(led, p, [ctr], nodes[i], deploy_t + dt.timedelta(seconds=12 * i), labels={"app": "ledger-writer", "team": "ledger"})
    k.replicaset(led, led.rs_hash, [ctr], 3, 3, deploy_t, 64, labels={"app": "ledger-writer", "team": "ledger"})
    k.replicaset(led, led_old_hash, [dict(ctr, image="eu.gcr.io/kestrel-prod/ledger-writer:4.17.2")], 0, 0, sc.at("2026-10-09T13:02:00Z"), 63,
                 labels={"app": "ledger-writer", "team": "ledger"})
    k.event(ns, "Deployment", "ledger-writer", "ScalingReplicaSet", f"Scaled up replica set ledger-writer-{led.rs_hash} from 0 to 1",
            deploy_t, component="deployment-controller", api_version="apps/v1")
    k.event(ns, "Deployment", "ledger-writer", "ScalingReplicaSet", f"Scaled down replica set ledger-writer-{led_old_hash} from 1 to 0",
            deploy_t + dt.timedelta(seconds=44), component="deployment-controller", api_version="apps/v1")
    octr = container_spec("payments-orchestrator", "eu.gcr.io/kestrel-prod/payments-orchestrator:2.31.4", 8080,
                          env={"LEDGER_URL": "http://ledger-writer.core-banking.svc:8080", "RETRY_BUDGET_RATIO": "0.2"},
                          requests={"cpu": "250m", "memory": "256Mi"}, limits={"memory": "512Mi"},
                          readiness=http_probe("/readyz", 8080, 5), liveness=http_probe("/healthz", 8080, 10, 5))
    k.deployment(orch, [octr], 2, ts("2024-11-02T09:00:00Z"), ts("2026-10-13T15:40:00Z"), 212, labels={"app": "payments-orchestrator"})
    k.pod(orch, orch.pods[0], [octr], nodes[0], ts("2026-10-13T15:40:11Z"), labels={"app": "payments-orchestrator"},
          state=running(sc.at("03:12:40")), restarts=1,
          last=terminated("Error", 2, ts("2026-10-13T15:40:20Z"), sc.at("03:12:31"), sc))
    k.pod(orch, orch.pods[1], [octr], nodes[2], ts("2026-10-13T15:40:45Z"), labels={"app": "payments-orchestrator"})
    k.event(ns, "Pod", orch.pods[0], "Unhealthy", "Liveness probe failed: Get \"http://%s:8080/healthz\": context deadline exceeded" % orch.ips[orch.pods[0]],
            sc.at("03:12:01"), sc.at("03:12:21"), 3, "Warning", host=nodes[0], field_path="spec.containers{payments-orchestrator}")
    k.event(ns, "HorizontalPodAutoscaler", "statement-api", "FailedGetResourceMetric",
            "failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",
            sc.at("07:02:10"), sc.at("09:31:10"), 41, "Warning", component="horizontal-pod-autoscaler", api_version="autoscaling/v2")
    k.secret("ledger-db-credentials", ns, ts("2025-02-11T09:58:00Z"), ["SPRING_DATASOURCE_USERNAME", "SPRING_DATASOURCE_PASSWORD"])

    # ---------------- trigger ----------------
    a = alert(sc, {"alertname": "LedgerWriterErrorRateHigh", "app": "ledger-writer", "namespace": ns, "severity": "critical",
                   "team": "ledger", "uri": "/v1/accounts/{accountId}/postings"},
              {"summary": "ledger-writer 5xx ratio above 2%",
               "description": "31.2% of POST /v1/accounts/{accountId}/postings requests returned 5xx over the last 10m.",
               "runbook_url": "https://runbooks.kestrel-bank.eu/ledger/ledger-writer-5xx",
               "dashboard": "https://grafana.kestrel-bank.eu/d/ledger-writer"},
              sc.at("08:24:00"),
              'sum(rate(http_server_requests_seconds_count{application="ledger-writer",outcome="SERVER_ERROR"}[10m])) / sum(rate(http_server_requests_seconds_count{application="ledger-writer"}[10m])) > 0.02',
              prom="https://prometheus.kestrel-bank.eu")
    sc.trigger = {"alert": webhook([a], ["alertname", "app"], "autoheal-ledger", "https://alertmanager.kestrel-bank.eu",
                                   route_key='{}/{team="ledger"}')}
    sc.config = {"repo": "kestrel-bank/core-ledger", "ref": "main", "log_service_label": "app", "namespace": ns}
    sc.truth = {"bucket": "code_bug", "service": "ledger-writer", "error_type": "runtime_error", "file": acc, "line": L,
                "line_tolerance": 3, "fix_keywords": ["MathContext", "RoundingMode", "scale", "divide"]}
    return sc
