package serve

import (
	"crypto/tls"
	"flag"
	"log/slog"
	"os"
	"strings"

	"github.com/racetrack-sim/racetrack/internal/cluster"
)

// EnvWorkerPassword gives the embedded NATS server's worker password
// when -nats-worker-password-file does not.
const EnvWorkerPassword = "RACETRACK_NATS_WORKER_PASSWORD"

// natsOptions are the flags of the cluster's credentials, TLS and limits.
type natsOptions struct {
	tlsCert, tlsKey, workerPwFile, pwFile, user, ca, maxDisk *string
	workerPwGiven                                            bool
}

func natsFlags(fs *flag.FlagSet) *natsOptions {
	return &natsOptions{
		tlsCert:      fs.String("nats-tls-cert", "", "PEM certificate of the embedded NATS server (-nats-listen); required off loopback unless -insecure"),
		tlsKey:       fs.String("nats-tls-key", "", "PEM key of -nats-tls-cert"),
		workerPwFile: fs.String("nats-worker-password-file", "", "file holding the password workers connect to the embedded NATS server with (default: $"+EnvWorkerPassword+", else generated and printed)"),
		pwFile:       fs.String("nats-password-file", "", "with -nats: file holding the password this server connects with (default: $"+cluster.EnvPassword+")"),
		user:         fs.String("nats-user", cluster.CoordinatorUser, "with -nats: the NATS user this server connects as"),
		ca:           fs.String("nats-ca", "", "with -nats: PEM file of the authority that signed the NATS servers' certificates (default: $"+cluster.EnvCA+", else the system's)"),
		maxDisk:      fs.String("nats-max-disk", "", "disk the embedded NATS server's streams may fill, e.g. 8GiB (default: 8 times the memory budget); memory streams get a sixteenth of the memory budget"),
	}
}

func readSecret(flagName, file, env string) (string, error) {
	if file == "" {
		return os.Getenv(env), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", &UsageError{Msg: flagName + ": " + err.Error()}
	}
	return strings.TrimSpace(string(b)), nil
}

// apply puts the flags into o: the external cluster's credentials, or
// the embedded server's passwords, certificate and JetStream limits.
func (n *natsOptions) apply(o *cluster.NodeOptions, budget int64, insecure bool) error {
	if o.URL != "" {
		pw, err := readSecret("-nats-password-file", *n.pwFile, cluster.EnvPassword)
		if err != nil {
			return err
		}
		o.Auth = cluster.ClientAuth{User: *n.user, Password: pw, CAFile: *n.ca}
		if o.Auth.CAFile == "" {
			o.Auth.CAFile = os.Getenv(cluster.EnvCA)
		}
		if pw == "" {
			o.Auth.User = ""
		}
		return nil
	}
	pw, err := readSecret("-nats-worker-password-file", *n.workerPwFile, EnvWorkerPassword)
	if err != nil {
		return err
	}
	if pw != "" {
		if err := cluster.CheckPassword("-nats-worker-password-file", pw); err != nil {
			return &UsageError{Msg: err.Error()}
		}
		n.workerPwGiven = true
	}
	o.Embedded.Auth.Worker = pw
	o.Embedded.Insecure = insecure
	if (*n.tlsCert == "") != (*n.tlsKey == "") {
		return &UsageError{Msg: "-nats-tls-cert and -nats-tls-key go together"}
	}
	if *n.tlsCert != "" {
		pair, err := tls.LoadX509KeyPair(*n.tlsCert, *n.tlsKey)
		if err != nil {
			return &UsageError{Msg: "-nats-tls-cert/-nats-tls-key: " + err.Error()}
		}
		o.Embedded.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}
	o.Embedded.Limits = cluster.JetStreamLimits{Memory: max(budget/16, 16<<20), Store: 8 * budget}
	if *n.maxDisk != "" {
		if o.Embedded.Limits.Store, err = parseBytes(*n.maxDisk); err != nil {
			return &UsageError{Msg: "-nats-max-disk: " + err.Error()}
		}
	}
	return nil
}

// announce logs where workers connect and, when it was generated, the
// worker password (as Jupyter prints its token): the operator hands it
// to the workers' hosts.
func (n *natsOptions) announce(logger *slog.Logger, node *cluster.Node) {
	url := node.ClientURL()
	if *n.tlsCert != "" {
		url = strings.Replace(url, "nats://", "tls://", 1)
	}
	if n.workerPwGiven {
		logger.Info("NATS for workers", "url", url, "user", cluster.WorkerUser)
		return
	}
	logger.Info("NATS for workers (a generated password: give it to the workers, e.g. "+cluster.EnvPassword+"=... racetrack worker -nats URL)",
		"url", url, "user", cluster.WorkerUser, "password", node.Embedded().Auth().Worker)
}
