// Command coredns is upstream CoreDNS (coremain, as its coredns.go runs it) built from the published
// Go module with the plugins kubeadm's Corefile uses, so the one-machine cluster gets the same cluster
// DNS as any other cluster without an image pull. forward is left out on purpose: nothing in this
// binary can send a query to a server outside the machine, whatever a Corefile says.
package main

import (
	"github.com/coredns/coredns/coremain"

	// The plugins of kubeadm's default Corefile (cmd/kubeadm/app/phases/addons/dns/manifests.go),
	// minus forward, plus log for debugging a query by hand.
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

func main() {
	coremain.Run()
}
