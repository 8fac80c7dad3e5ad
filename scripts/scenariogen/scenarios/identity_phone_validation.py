"""Fintech signup (NestJS): a new class-validator regex rejects E.164 phone numbers with '+' -> 400s, signups drop."""
import datetime as dt

from sg import *

NAME = "identity-signup-phone-regex-400"


def build():
    sc = Scenario(NAME, "2026-09-22T11:45:00Z", """
        The 09:02 identity-service release tightened CreateUserDto.phone to @Matches(/^\\d{10,15}$/), but the
        mobile apps send E.164 numbers with a leading '+', so every signup that includes a phone number (all app
        signups, ~70% of traffic) is rejected with 400 Bad Request; web signups without a phone still work.
        Nothing errors on the server side: the spans are not errors (4xx), only the validation logs, the 400
        rate and the signup conversion metric show it. The kyc-adapter timeouts and the email-service commit are
        unrelated.""", repo="pennywise-fin/identity")
    ns = "identity"
    gw = sc.svc("api-gateway", "edge", "proxy", pods=["api-gateway-5f7c8d9b6-2lq8w"])
    ids = sc.svc("identity-service", ns, "nodejs", version="4.6.0", runtime="20.17.0", npods=2)
    kyc = sc.svc("kyc-adapter", ns, "python", npods=1)
    rollout = sc.at("09:14:30")

    dto = "src/users/dto/create-user.dto.ts"
    sc.file(dto, """
        import { IsEmail, IsOptional, IsString, Length, Matches } from 'class-validator';

        export class CreateUserDto {
          @IsEmail()
          email: string;

          @IsString()
          @Length(12, 128)
          password: string;

          @IsOptional()
          @Matches(/^\\d{10,15}$/, { message: 'phone must be a valid phone number' })
          phone?: string;

          @IsOptional()
          @IsString()
          @Length(2, 2)
          country?: string;
        }
        """)
    ctl = "src/users/users.controller.ts"
    sc.file(ctl, """
        import { Body, Controller, HttpCode, Post } from '@nestjs/common';
        import { CreateUserDto } from './dto/create-user.dto';
        import { UsersService } from './users.service';

        @Controller('v1/users')
        export class UsersController {
          constructor(private readonly users: UsersService) {}

          @Post()
          @HttpCode(201)
          async create(@Body() dto: CreateUserDto) {
            const user = await this.users.create(dto);
            return { id: user.id, status: user.status };
          }
        }
        """)
    sc.file("src/main.ts", """
        import { ValidationPipe } from '@nestjs/common';
        import { NestFactory } from '@nestjs/core';
        import { AppModule } from './app.module';

        async function bootstrap() {
          const app = await NestFactory.create(AppModule, { bufferLogs: true });
          app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }));
          await app.listen(3000);
        }
        bootstrap();
        """)
    sc.file("email-service/templates/welcome.mjml", """
        <mjml>
          <mj-body>
            <mj-section><mj-column><mj-text>Welcome to Pennywise, {{firstName}}!</mj-text></mj-column></mj-section>
          </mj-body>
        </mjml>
        """)
    L = sc.line(dto, "@Matches(/^\\d{10,15}$/")
    sc.commit("2026-09-22T10:20:00Z", ("Hana Novak", "hana@pennywise.money", "hnovak"), "email: friendlier welcome copy",
              [("email-service/templates/welcome.mjml", "<mj-text>Welcome, {{firstName}}.</mj-text>",
                "<mj-text>Welcome to Pennywise, {{firstName}}!</mj-text>")])
    sc.commit("2026-09-22T08:51:12Z", ("Sipho Ndlovu", "sipho@pennywise.money", "sndlovu"),
              """identity: validate phone format on signup (SEC-88)

              Junk values like "n/a" and "000" ended up in the phone column.""",
              [(dto, """  @IsOptional()
  @IsString()
  phone?: string;""", """  @IsOptional()
  @Matches(/^\\d{10,15}$/, { message: 'phone must be a valid phone number' })
  phone?: string;"""),
               (dto, "import { IsEmail, IsOptional, IsString, Length } from 'class-validator';",
                "import { IsEmail, IsOptional, IsString, Length, Matches } from 'class-validator';")], merged_by_github=True)
    lab = lambda s, pod, lvl: {"app": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("08:45"), sc.at("11:43")

    def signup(t, app):
        bad = t >= rollout and app
        code = 400 if bad else 201
        tr = sc.trace()
        st = us(t)
        p = ids.pod()
        d = sc.rng.randint(2_000, 5_000) if bad else sc.rng.randint(60_000, 140_000)
        root = tr.span(gw, "ingress", st, d + 2_500, tags={"component": "proxy", "http.method": "POST", "http.url": "https://api.pennywise.money/v1/users",
                                                           "http.status_code": str(code), "upstream_cluster": "identity-service", "response_flags": "-",
                                                           "user_agent": "Pennywise/5.2.1 (iPhone; iOS 18.0)" if app else "Mozilla/5.0"})
        s = tr.span(ids, "POST /v1/users", st + 800, d, parent=root, pod=p,
                    tags=http_server("POST", "/v1/users", code, new=False, host="identity-service", port=3000, scope="@opentelemetry/instrumentation-http"))
        tr.span(ids, "request handler - /v1/users", st + 1_100, d - 600, parent=s, kind="internal",
                tags={"nestjs.type": "request_context", "nestjs.controller": "UsersController", "nestjs.callback": "create",
                      "otel.scope.name": "@opentelemetry/instrumentation-nestjs-core"})
        if not bad:
            tr.span(ids, "pg.query:INSERT identity", st + 4_000, 9_000, parent=s, kind="client",
                    tags=db("postgresql", "INSERT INTO users (id, email, password_hash, phone, country) VALUES ($1, $2, $3, $4, $5)", "identity",
                            "identity-pg.identity.svc", 5432, "INSERT", new=False))
            c = tr.span(ids, "POST", st + 15_000, d - 20_000, parent=s, kind="client",
                        tags=http_client("POST", "http://kyc-adapter.identity.svc:8000/v1/checks", 202, new=False, peer="kyc-adapter"))
            tr.span(kyc, "POST /v1/checks", st + 15_500, d - 21_000, parent=c,
                    tags=http_server("POST", "/v1/checks", 202, host="kyc-adapter", port=8000, scope="opentelemetry.instrumentation.flask"))
            sc.log(lab("identity-service", p, "info"), from_us(st + d), json.dumps({
                "level": "info", "timestamp": iso(from_us(st + d), 3), "context": "UsersService", "message": "user created",
                "userId": sc.uuid(), "channel": "app" if app else "web", "trace_id": tr.id, "span_id": s["spanID"]}))
        else:
            sc.log(lab("identity-service", p, "warn"), from_us(st + d - 300), json.dumps({
                "level": "warn", "timestamp": iso(from_us(st + d - 300), 3), "context": "HttpExceptionFilter",
                "message": "Bad Request Exception", "statusCode": 400, "path": "/v1/users",
                "response": {"message": ["phone must be a valid phone number"], "error": "Bad Request", "statusCode": 400},
                "trace_id": tr.id, "span_id": s["spanID"]}))

    for t in sc.times(t0, t1, 26):
        signup(t, sc.rng.random() < 0.7)
    for t in sc.times(t0, t1, 160):
        p = ids.pod()
        app = sc.rng.random() < 0.7
        if t >= rollout and app:
            sc.log(lab("identity-service", p, "warn"), t, json.dumps({
                "level": "warn", "timestamp": iso(t, 3), "context": "HttpExceptionFilter", "message": "Bad Request Exception", "statusCode": 400,
                "path": "/v1/users", "response": {"message": ["phone must be a valid phone number"], "error": "Bad Request", "statusCode": 400}}))
        else:
            sc.log(lab("identity-service", p, "info"), t, json.dumps({"level": "info", "timestamp": iso(t, 3), "context": "UsersService",
                                                                      "message": "user created", "userId": sc.uuid(), "channel": "app" if app else "web"}))
    for t in sc.times(t0, t1, 30):
        sc.log(lab("kyc-adapter", kyc.pods[0], "error"), t, f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} ERROR kyc_adapter.vendor: document check timed out after 10s (vendor=onfido-eu), will retry")
    m0, m1 = sc.at("08:30"), sc.at("11:44")
    on = lambda t: t >= rollout + dt.timedelta(seconds=30)
    for code, fn in [("201", lambda t: 2.2 * (0.3 if on(t) else 1)), ("400", lambda t: 1.55 if on(t) else 0.03), ("409", lambda t: 0.08)]:
        sc.counter({"__name__": "http_server_duration_count", "job": "identity-service", "namespace": ns, "http_route": "/v1/users",
                    "http_method": "POST", "http_status_code": code}, m0, m1, fn, initial=sc.rng.randint(1e4, 9e5))
    sc.gauge({"__name__": "signup_conversion_ratio", "job": "growth-metrics", "channel": "app"}, m0, m1, lambda t: 0.02 if on(t) else sc.rng.uniform(0.61, 0.66))
    sc.gauge({"__name__": "signup_conversion_ratio", "job": "growth-metrics", "channel": "web"}, m0, m1, lambda t: sc.rng.uniform(0.48, 0.55))

    sc.trigger = {"mention": "signups down like 70% since this morning's release?? growth dashboard tanked. identity svc looks healthy, no 5xx. wtf"}
    sc.config = {"repo": "pennywise-fin/identity", "log_service_label": "app", "service_name": "identity-service"}
    sc.truth = {"bucket": "code_bug", "service": "identity-service", "error_type": "data_validation", "file": dto, "line": L,
                "line_tolerance": 2, "fix_keywords": ["+", "E.164", "IsPhoneNumber", "regex", "Matches"]}
    return sc
