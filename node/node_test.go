package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/icp"
)

func TestNodesShareDigests(t *testing.T) {
	origin := newTestOrigin(t)
	lnA, lnB, lnC := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	peer := func(name string, ln net.Listener) PeerConfig {
		return PeerConfig{Name: name, Proxy: "http://" + ln.Addr().String()}
	}
	dirB := t.TempDir()
	a := startNode(t, lnA, nil, NodeConfig{Peers: []PeerConfig{peer("b", lnB), peer("c", lnC)}})
	b := startNode(t, lnB, nil, NodeConfig{DiskDir: dirB, Peers: []PeerConfig{peer("a", lnA)}})
	startNode(t, lnC, nil, NodeConfig{Peers: []PeerConfig{peer("a", lnA)}})
	ctx := context.Background()

	obj := func(i int) string { return fmt.Sprintf("%s/obj/%d", origin.URL, i) }
	for i := range 20 {
		if body, _ := b.get(t, obj(i)); body != fmt.Sprintf("object /obj/%d", i) {
			t.Fatalf("through b: %q", body)
		}
	}
	b.Publisher().Publish()
	a.Directory().Refresh(ctx)

	// A miss at a goes to b, whose digest holds the object.
	if body, _ := a.get(t, obj(3)); body != "object /obj/3" || origin.count("/obj/3") != 1 {
		t.Fatalf("peer hit: body %q, origin asked %d times", body, origin.count("/obj/3"))
	}
	if !strings.Contains(a.log.String(), "CD_SIBLING_HIT/b") {
		t.Fatalf("access log of a:\n%s", a.log)
	}
	if got := a.metric(t, `bloomcast_requests_total{outcome="peer_hit"}`); got != "1" {
		t.Fatalf("peer hits: %q", got)
	}
	// Now a holds it: a local hit.
	a.get(t, obj(3))
	if got := a.metric(t, `bloomcast_requests_total{outcome="local_hit"}`); got != "1" {
		t.Fatalf("local hits: %q", got)
	}

	// A false hit: b dropped the object but a's view of b still says
	// maybe; b answers 504 and a goes to the origin.
	key, _ := cache.Key(obj(5))
	b.Store().Delete(key)
	if body, _ := a.get(t, obj(5)); body != "object /obj/5" || origin.count("/obj/5") != 2 {
		t.Fatalf("after a false hit: %q, origin asked %d times", body, origin.count("/obj/5"))
	}
	if got := a.metric(t, `bloomcast_peer_requests_total{peer="b",result="false_hit"}`); got != "1" {
		t.Fatalf("false hits: %q", got)
	}
	if got := a.metric(t, `bloomcast_false_hit_requests_total`); got != "1" || a.stats().FalseHitRequests != 1 {
		t.Fatalf("requests with a false hit: %q, %d", got, a.stats().FalseHitRequests)
	}
	if got := a.metric(t, `bloomcast_requests_total{outcome="miss"}`); got != "1" {
		t.Fatalf("misses: %q", got)
	}

	// Deltas: b stores more and publishes; a applies a delta.
	for i := 20; i < 25; i++ {
		b.get(t, obj(i))
	}
	b.Publisher().Publish()
	a.Directory().Refresh(ctx)
	st := a.Directory().status()[0]
	if st.Delta != 1 || st.Sequence != b.Publisher().stats().Sequence {
		t.Fatalf("a's view of b after a publication: %+v", st)
	}
	if body, _ := a.get(t, obj(22)); body != "object /obj/22" || origin.count("/obj/22") != 1 {
		t.Fatal("object published in a delta not fetched from b")
	}

	// b restarts on the same address with its disk cache: its sequence
	// numbers start again, and a resynchronises with a full digest.
	fullBefore := st.Full
	b.stop()
	lnB2 := listen(t, lnB.Addr().String())
	b2 := startNode(t, lnB2, nil, NodeConfig{DiskDir: dirB, Peers: []PeerConfig{peer("a", lnA)}})
	b2.Publisher().Publish()
	if err := a.Directory().RefreshPeer(ctx, a.Directory().Peers()[0]); err != nil {
		t.Fatal(err)
	}
	st = a.Directory().status()[0]
	if st.Full != fullBefore+1 || st.Sequence != b2.Publisher().stats().Sequence {
		t.Fatalf("a's view of b after b restarted: %+v", st)
	}
	if body, _ := a.get(t, obj(10)); body != "object /obj/10" || origin.count("/obj/10") != 1 {
		t.Fatalf("object kept on b's disk not fetched from b after its restart (origin asked %d times)", origin.count("/obj/10"))
	}

	// b serves a Squid digest of the same cache, as Squid fetches it:
	// absolute form, addressed to b itself.
	resp, err := http.Get(b2.url() + squidDigestPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sd, err := squid.Decode(body, squid.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := sd.Contains(squid.GET, obj(10)); !ok || resp.Header.Get("Content-Type") != "application/cache-digest" {
		t.Fatal("b's Squid digest does not hold its objects")
	}
	if !b2.addressedToMe(&http.Request{RequestURI: b2.url() + squidDigestPath, URL: mustURL(b2.url() + squidDigestPath)}) {
		t.Fatal("an absolute-form request for b's own digest is not served by b")
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func TestNodeICPRoute(t *testing.T) {
	origin := newTestOrigin(t)
	udp := func() net.PacketConn {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return pc
	}
	lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	icpA, icpB := udp(), udp()
	b := startNode(t, lnB, icpB, NodeConfig{ICPListen: icpB.LocalAddr().String()})
	a := startNode(t, lnA, icpA, NodeConfig{ICPListen: icpA.LocalAddr().String(), Route: RouteICP, ICPTimeout: time.Second,
		Peers: []PeerConfig{{Name: "b", Proxy: b.url(), ICP: icpB.LocalAddr().String()}}})
	target := origin.URL + "/obj/1"
	b.get(t, target)
	if body, _ := a.get(t, target); body != "object /obj/1" || origin.count("/obj/1") != 1 {
		t.Fatalf("ICP sibling hit: %q, origin asked %d times", body, origin.count("/obj/1"))
	}
	if !strings.Contains(a.log.String(), "SIBLING_HIT/b") {
		t.Fatalf("access log of a:\n%s", a.log)
	}
	// An object b does not have: b answers MISS, a goes to the origin.
	if body, _ := a.get(t, origin.URL+"/obj/2"); body != "object /obj/2" {
		t.Fatalf("ICP miss: %q", body)
	}
	// b counts each reply after sending it (icp.ServerStats.Answered).
	waitFor(t, 5*time.Second, "b's ICP replies to be counted", func() bool {
		s := b.stats().ICPServer
		return s.Answered() >= s.Queries
	})
	sa, sb := a.stats(), b.stats()
	if sa.ICPClient.MessagesSent != 2 || sa.ICPClient.Queries != 2 || sa.PeerHits != 1 || sa.Misses != 1 {
		t.Errorf("a: %+v", sa)
	}
	if sb.ICPServer.Queries != 2 || sb.ICPServer.MessagesSent != 2 || sb.ICPServer.BytesSent == 0 {
		t.Errorf("b: %+v", sb)
	}
	// Two queries from a, two answers from b: the metrics read the ICP
	// sockets' own counters.
	for _, c := range []struct {
		node   *testNode
		sample string
	}{
		{a, `bloomcast_icp_messages_total{direction="sent",role="client"}`},
		{a, `bloomcast_icp_messages_total{direction="received",role="client"}`},
		{b, `bloomcast_icp_messages_total{direction="received",role="server"}`},
		{b, `bloomcast_icp_messages_total{direction="sent",role="server"}`},
	} {
		if got := c.node.metric(t, c.sample); got != "2" {
			t.Errorf("%s = %q, want 2", c.sample, got)
		}
	}
	if got := a.metric(t, `bloomcast_icp_bytes_total{direction="sent",role="client"}`); got == "" || got == "0" {
		t.Errorf("ICP bytes sent by a: %q", got)
	}
}

func TestNodeSafety(t *testing.T) {
	origin := newTestOrigin(t)
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{AllowClients: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
		AllowPeers: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	if _, resp := n.get(t, origin.URL+"/obj/1"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("client outside the allow-list: %d", resp.StatusCode)
	}
	resp, err := http.Get(n.url() + DigestPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("peer outside the allow-list: %d", resp.StatusCode)
	}
	resp, err = http.Get(n.url() + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v", err)
	}
	resp.Body.Close()
	if _, err := NewNode(NodeConfig{Route: "carrier-pigeon"}); err == nil {
		t.Fatal("bad route accepted")
	}
	if _, err := NewNode(NodeConfig{Route: RouteICP}); err == nil {
		t.Fatal("ICP route without an ICP address accepted")
	}
}

// TestNodeReadTimeout checks that a node's ReadTimeout reaches its proxy:
// an origin silent after the request gets 504 at the node's timeout,
// logged, and the node's default is Squid's 15 minutes.
func TestNodeReadTimeout(t *testing.T) {
	n := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{ReadTimeout: 200 * time.Millisecond})
	silent := rawStallOrigin(t)
	start := time.Now()
	_, resp := n.get(t, silent+"/x")
	if resp.StatusCode != http.StatusGatewayTimeout || time.Since(start) > 9*time.Second {
		t.Fatalf("silent origin: %d after %v, want 504 at the 200ms read timeout", resp.StatusCode, time.Since(start))
	}
	if n.cfg.ReadTimeout != 200*time.Millisecond {
		t.Errorf("proxy read timeout %v", n.cfg.ReadTimeout)
	}
	d := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{})
	if d.cfg.ReadTimeout != cache.DefaultReadTimeout || cache.DefaultReadTimeout != 15*time.Minute {
		t.Errorf("default read timeout %v", d.cfg.ReadTimeout)
	}
}

// TestNodeICPUnansweredCounted floods a node's ICP socket with queries
// from outside --allow-peers: beyond its ICP_OP_DENIED budget they go
// unanswered (icp.Server), and /metrics says how many.
func TestNodeICPUnansweredCounted(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := startNode(t, listen(t, "127.0.0.1:0"), pc, NodeConfig{ICPListen: pc.LocalAddr().String(),
		AllowPeers: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	const queries = 50
	sendICPQueries(t, pc.LocalAddr(), queries)
	waitFor(t, 5*time.Second, "the queries to be answered or left", func() bool {
		s := n.stats().ICPServer
		return s.Queries == queries && s.Answered() == queries
	})
	// /metrics answers --allow-peers only: read the node's own registry.
	families, err := n.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	s := n.stats().ICPServer
	for _, f := range families {
		if f.GetName() == "bloomcast_icp_queries_unanswered_total" {
			got := f.GetMetric()[0].GetCounter().GetValue()
			if got == 0 || got != float64(s.Unanswered) || s.Denied+s.Unanswered != queries {
				t.Fatalf("bloomcast_icp_queries_unanswered_total %v, server stats %+v", got, s)
			}
			return
		}
	}
	t.Fatal("no bloomcast_icp_queries_unanswered_total in the node's metrics")
}

// sendICPQueries sends n ICP queries for one URL to addr from a socket of
// its own, as fast as it can.
func sendICPQueries(t *testing.T, addr net.Addr, n int) {
	t.Helper()
	client, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	q, err := icp.Encode(icp.Message{Opcode: icp.OpQuery, RequestNumber: 1, URL: "http://example.com/"})
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, err := client.WriteTo(q, addr); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNodeICPReplies: NodeConfig.ICPReplies is the node's ICP reply
// budget; allowed queries beyond it go unanswered and are counted.
func TestNodeICPReplies(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const budget, queries = 5, 200
	n := startNode(t, listen(t, "127.0.0.1:0"), pc, NodeConfig{ICPListen: pc.LocalAddr().String(), ICPReplies: budget})
	start := time.Now()
	sendICPQueries(t, pc.LocalAddr(), queries)
	waitFor(t, 5*time.Second, "the queries to be answered or left", func() bool {
		s := n.stats().ICPServer
		return s.Queries == queries && s.Answered() == queries
	})
	s := n.stats().ICPServer
	bound := uint64((time.Since(start).Seconds() + 1) * budget)
	if replied := s.Queries - s.Unanswered; replied == 0 || replied > bound || s.Denied != 0 {
		t.Fatalf("%d of %d queries answered at a budget of %d a second (want 1 to %d): %+v", replied, queries, budget, bound, s)
	}
	// The counter's help names the budget's setting: a fixed figure
	// would be wrong for every node that sets it.
	_, text := getBody(t, n.url()+"/metrics")
	help := "# HELP bloomcast_icp_queries_unanswered_total "
	i := strings.Index(text, help)
	if i < 0 {
		t.Fatalf("no %q in /metrics", help)
	}
	if line, _, _ := strings.Cut(text[i:], "\n"); !strings.Contains(line, "--icp-replies") {
		t.Errorf("the help does not name --icp-replies, the budget set here to %d: %s", budget, line)
	}
	if _, err := NewNode(NodeConfig{ICPReplies: -1}); !errors.Is(err, cache.ErrConfig) {
		t.Fatalf("ICPReplies -1: %v", err)
	}
}

// TestNodeICPRouteMappedAddress: a peer's ICP address written as an
// IPv4-mapped IPv6 address is the address its replies come from, which
// the ICP client reads unmapped: the peer's HIT still routes to it.
func TestNodeICPRouteMappedAddress(t *testing.T) {
	origin := newTestOrigin(t)
	var pcs [2]net.PacketConn
	for i := range pcs {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		pcs[i] = pc
	}
	b := startNode(t, listen(t, "127.0.0.1:0"), pcs[1], NodeConfig{ICPListen: pcs[1].LocalAddr().String()})
	mapped := netip.AddrPortFrom(netip.MustParseAddr("::ffff:127.0.0.1"), pcs[1].LocalAddr().(*net.UDPAddr).AddrPort().Port())
	a := startNode(t, listen(t, "127.0.0.1:0"), pcs[0], NodeConfig{ICPListen: pcs[0].LocalAddr().String(), Route: RouteICP,
		ICPTimeout: time.Second, Peers: []PeerConfig{{Name: "b", Proxy: b.url(), ICP: mapped.String()}}})
	target := origin.URL + "/obj/1"
	b.get(t, target)
	if body, _ := a.get(t, target); body != "object /obj/1" || origin.count("/obj/1") != 1 {
		t.Fatalf("ICP sibling hit through %s: %q, origin asked %d times", mapped, body, origin.count("/obj/1"))
	}
}
