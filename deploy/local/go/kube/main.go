// Command kube is a multi-call binary holding the upstream Kubernetes components the
// one-machine cluster runs. It picks the component from its own name (a symlink called
// kube-apiserver, kubectl, ...) or, failing that, from its first argument, so
// `kube kube-apiserver --help` and `kube-apiserver --help` behave the same.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	_ "time/tzdata" // CronJob time zones, as the upstream apiserver and controller-manager embed them

	"github.com/spf13/cobra"
	_ "k8s.io/client-go/plugin/pkg/client/auth" // kubectl's client auth plugins
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/json/register"          // --logging-format=json
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics on /metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // the version metric
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// servers maps a component name to the constructor of its cobra command.
var servers = map[string]func() *cobra.Command{
	"kube-apiserver":          apiserver.NewAPIServerCommand,
	"kube-controller-manager": controllermanager.NewControllerManagerCommand,
	"kube-scheduler":          func() *cobra.Command { return scheduler.NewSchedulerCommand() },
	"kube-proxy":              proxy.NewProxyCommand,
}

func main() {
	name := filepath.Base(os.Args[0])
	if !known(name) && len(os.Args) > 1 && known(os.Args[1]) {
		// Drop the binary's own name so the component sees the argument list it expects.
		name = os.Args[1]
		os.Args = os.Args[1:]
	}
	if name == "kubectl" {
		runKubectl()
		return
	}
	newCommand, ok := servers[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "usage: %s <component> [flags]\ncomponents: %v\n", filepath.Base(os.Args[0]), names())
		os.Exit(2)
	}
	os.Exit(cli.Run(newCommand()))
}

// runKubectl mirrors upstream's kubectl main: verbosity is read before the command is
// built so plugin lookup and kuberc loading log at the requested level.
func runKubectl() {
	_, _ = logs.GlogSetter(kubectlcmd.GetLogVerbosity(os.Args))
	if err := cli.RunNoErrOutput(kubectlcmd.NewDefaultKubectlCommand()); err != nil {
		kubectlutil.CheckErr(err)
	}
}

func known(name string) bool {
	_, ok := servers[name]
	return ok || name == "kubectl"
}

func names() []string {
	all := []string{"kubectl"}
	for name := range servers {
		all = append(all, name)
	}
	sort.Strings(all)
	return all
}
