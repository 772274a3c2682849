// Command etcd is upstream etcd's server entry point, built from the published Go module
// so the one-machine cluster gets a current etcd without a Debian package or a download.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
