package httpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Resolver resolves host names; *net.Resolver implements it (tests inject
// one that plays DNS rebinding).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ErrAddressRefused is returned (wrapped in *AddressError) when a
// user-supplied URL leads to an address users may not reach.
var ErrAddressRefused = errors.New("address refused")

// AddressError says which host led to which refused address, and why.
type AddressError struct {
	Host   string
	Addr   netip.Addr
	Reason string // loopback, private, link-local, …
}

func (e *AddressError) Error() string {
	// The address itself is left out: it may be an internal one.
	if e.Addr.IsValid() && e.Addr.String() != e.Host {
		return fmt.Sprintf("%s resolves to a %s address", e.Host, e.Reason)
	}
	return fmt.Sprintf("%s is a %s address", e.Host, e.Reason)
}

func (e *AddressError) Is(target error) bool { return target == ErrAddressRefused }

// GuardOptions configure a Guard.
type GuardOptions struct {
	// AllowedHosts are dialled without the address check: host names or IP
	// literals, case-insensitive, "*.example.com" for any subdomain, each
	// with an optional ":port" that restricts it to that port
	// ("127.0.0.1:8081" allows the sidecar, not every port of the pod).
	// An address range ("10.20.0.0/16", "fd00:1::/64", with an optional
	// ":port") allows the IP literals in it and the addresses names
	// resolve to in it: an internal network the bot may reach.
	AllowedHosts []string
	// Resolver resolves names (default net.DefaultResolver).
	Resolver Resolver
}

// Guard keeps user-supplied URLs away from the deployment's own network:
// connections to loopback, private, link-local and other non-public
// addresses (IPv4 and IPv6, IPv4-mapped and NAT64 forms included) are
// refused unless the URL's host is allowlisted. The check is made on the
// address actually dialled, after resolution, so a name that resolves to
// a public address when a setting is saved and to 169.254.169.254 later
// (DNS rebinding) is still refused. Operator-configured URLs do not go
// through a Guard.
type Guard struct {
	allowed  []allowedHost
	resolver Resolver
	dialer   *net.Dialer

	once      sync.Once
	transport *http.Transport
}

// allowedHost is one allowlist entry; port "" allows every port.
type allowedHost struct {
	host, port string
	prefix     netip.Prefix // valid for an address range
}

// matchesPort reports whether the entry applies to port.
func (a allowedHost) matchesPort(port string) bool { return a.port == "" || a.port == port }

// NewGuard returns a Guard; AllowedHosts are normalized (see ParseHosts).
func NewGuard(o GuardOptions) *Guard {
	g := &Guard{resolver: o.Resolver, dialer: &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	for _, e := range o.AllowedHosts {
		if a, ok := parseAllowed(e); ok {
			g.allowed = append(g.allowed, a)
		}
	}
	return g
}

// parseAllowed reads "host", "host:port", "[v6]:port", "*.domain[:port]",
// "cidr[:port]".
func parseAllowed(e string) (allowedHost, bool) {
	e = strings.ToLower(strings.TrimSpace(e))
	var a allowedHost
	if strings.Contains(e, "/") {
		return parseAllowedRange(e)
	}
	if h, p, err := net.SplitHostPort(e); err == nil {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return a, false
		}
		a.host, a.port = h, p
	} else {
		a.host = e
	}
	a.host = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(a.host, "["), "]"), ".")
	name := strings.TrimPrefix(a.host, "*.")
	if ip, err := netip.ParseAddr(name); err == nil {
		if name != a.host {
			return a, false // *.<ip>
		}
		a.host = ip.Unmap().String()
		return a, true
	}
	return a, hostNameRE(name)
}

// parseAllowedRange reads "10.0.0.0/8", "10.0.0.0/8:9090", "fd00::/8",
// "[fd00::/8]:9090". A range must be written as its network address
// ("10.1.2.3/8" is refused: which was meant, the host or the network?).
func parseAllowedRange(e string) (allowedHost, bool) {
	var a allowedHost
	cidr := e
	if i := strings.LastIndex(e, "]:"); strings.HasPrefix(e, "[") && i > 0 {
		cidr, a.port = e[1:i], e[i+2:]
	} else if i := strings.LastIndex(e, ":"); i > strings.Index(e, "/") && !strings.Contains(e[:strings.Index(e, "/")], ":") {
		cidr, a.port = e[:i], e[i+1:] // an IPv4 range with a port
	}
	if a.port != "" {
		if n, err := strconv.Atoi(a.port); err != nil || n < 1 || n > 65535 {
			return a, false
		}
	}
	p, err := netip.ParsePrefix(cidr)
	if err != nil || p != p.Masked() {
		return a, false
	}
	a.prefix = p
	return a, true
}

// inRange reports whether ip, dialled on port, is in an allowed range.
func (g *Guard) inRange(ip netip.Addr, port string) bool {
	ip = ip.Unmap()
	for _, a := range g.allowed {
		if a.prefix.IsValid() && a.matchesPort(port) && a.prefix.Contains(ip) {
			return true
		}
	}
	return false
}

// ParseHosts reads a list of allowed hosts separated by commas or spaces:
// host names, IP literals, "*.domain" patterns or address ranges (CIDR),
// each with an optional ":port". URLs and paths are refused, naming the
// entry.
func ParseHosts(s string) ([]string, error) {
	var out, bad []string
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == ';' }) {
		if _, ok := parseAllowed(e); !ok {
			bad = append(bad, fmt.Sprintf("%q", clip(e, 60)))
			continue
		}
		out = append(out, strings.ToLower(e))
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("not a host name, IP address, *.domain or address range such as 10.0.0.0/8 (with an optional :port): %s", strings.Join(bad, ", "))
	}
	return out, nil
}

func hostNameRE(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// HostPort is a URL's host and port, the port filled in from the scheme
// when the URL has none.
func HostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Allows reports whether hostport ("host:port", as dialled or from
// HostPort) is allowlisted.
func (g *Guard) Allows(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if ip, err := netip.ParseAddr(h); err == nil {
		h = ip.Unmap().String()
		if g.inRange(ip, port) {
			return true
		}
	}
	for _, a := range g.allowed {
		if a.prefix.IsValid() || !a.matchesPort(port) {
			continue
		}
		if suffix, ok := strings.CutPrefix(a.host, "*."); ok {
			if strings.HasSuffix(h, "."+suffix) {
				return true
			}
			continue
		}
		if h == a.host {
			return true
		}
	}
	return false
}

// AllowsURL reports whether a URL's host and port are allowlisted.
func (g *Guard) AllowsURL(raw string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	return err == nil && u.Hostname() != "" && g.Allows(HostPort(u))
}

// CheckURL checks a user-supplied URL when it is saved: an allowlisted host
// passes; any other must resolve, and only to public addresses. The
// connection is checked again when it is made (see Transport).
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return errors.New("not an absolute URL")
	}
	hp := HostPort(u)
	if g.Allows(hp) {
		return nil
	}
	_, port, _ := net.SplitHostPort(hp)
	_, err = g.addrs(ctx, u.Hostname(), port, false)
	return err
}

// addrs resolves host and, unless allowed, refuses it when any of its
// addresses is not public nor in an allowed range for port (a name with
// one such address is refused whole: a resolver may return them in any
// order).
func (g *Guard) addrs(ctx context.Context, host, port string, allowed bool) ([]netip.Addr, error) {
	var ips []netip.Addr
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")); err == nil {
		ips = []netip.Addr{a}
	} else {
		if ips, err = g.resolver.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, &net.DNSError{Err: "cannot resolve host", Name: host, IsNotFound: true}
		}
		if len(ips) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	if !allowed {
		for _, ip := range ips {
			if why := nonPublic(ip); why != "" && !g.inRange(ip, port) {
				return nil, &AddressError{Host: host, Addr: ip.Unmap(), Reason: why}
			}
		}
	}
	return ips, nil
}

// dialContext resolves the address, refuses non-public addresses of hosts
// that are not allowlisted, and dials the checked address itself, so what
// is checked is what is connected to.
func (g *Guard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := g.addrs(ctx, host, port, g.Allows(addr))
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, ip := range ips {
		conn, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// Transport returns the guarded transport (one per Guard, so connections
// are pooled). Only allowlisted hosts go through the environment's proxy:
// a proxy would hide the address from the check.
func (g *Guard) Transport() http.RoundTripper {
	g.once.Do(func() {
		t := defaultTransport.Clone()
		t.DialContext = g.dialContext
		t.Proxy = func(r *http.Request) (*url.URL, error) {
			if g.Allows(HostPort(r.URL)) {
				return http.ProxyFromEnvironment(r)
			}
			return nil, nil
		}
		g.transport = t
	})
	return g.transport
}

// Client returns an http.Client over Transport that follows redirects
// only within the same host (see SameHostRedirects).
func (g *Guard) Client() *http.Client {
	return &http.Client{Transport: g.Transport(), CheckRedirect: SameHostRedirects}
}

// nonPublicPrefixes are ranges beyond netip's predicates that are not the
// public internet (RFC 6890 special-purpose registries).
var nonPublicPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // this network
		"100.64.0.0/10",   // shared address space (carrier-grade NAT, some clusters)
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation
		"203.0.113.0/24",  // documentation
		"240.0.0.0/4",     // reserved, broadcast
		"2001:db8::/32",   // documentation
		"2001::/32",       // Teredo (embeds an obscured IPv4 address)
		"fec0::/10",       // site-local (deprecated)
		"100::/64",        // discard
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

var (
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	nat64l  = netip.MustParsePrefix("64:ff9b:1::/48")
	sixTo4  = netip.MustParsePrefix("2002::/16")
	v4compt = netip.MustParsePrefix("::/96")
)

// nonPublic names the kind of a non-public address ("" for public ones).
// Addresses that embed an IPv4 address (mapped, compatible, NAT64, 6to4)
// are judged by it.
func nonPublic(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip) || v4compt.Contains(ip) && !ip.IsUnspecified() && !ip.IsLoopback():
			if why := nonPublic(netip.AddrFrom4([4]byte(b[12:16]))); why != "" {
				return why
			}
		case sixTo4.Contains(ip):
			if why := nonPublic(netip.AddrFrom4([4]byte(b[2:6]))); why != "" {
				return why
			}
		case nat64l.Contains(ip):
			return "reserved"
		}
	}
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, p := range nonPublicPrefixes {
		if p.Contains(ip) {
			return "reserved"
		}
	}
	return ""
}

// ErrCrossHostRedirect refuses a redirect to another host (or from https
// to http): the headers of a request, tokens and tenants included, go only
// to the host they were configured for.
var ErrCrossHostRedirect = errors.New("redirected to another host; not followed")

// SameHostRedirects is an http.Client CheckRedirect that follows at most 5
// redirects, all on the first request's scheme and host.
func SameHostRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	first := via[0].URL
	if !strings.EqualFold(req.URL.Host, first.Host) || (first.Scheme == "https" && req.URL.Scheme != "https") {
		return ErrCrossHostRedirect
	}
	return nil
}
