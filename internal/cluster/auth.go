package cluster

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// The cluster's NATS account and its two users. Everything a search
// uses lives in this one account; another account on the same NATS
// cluster sees none of its subjects.
const (
	AccountName     = "RACETRACK"
	CoordinatorUser = "coordinator"
	WorkerUser      = "worker"
	// workerInbox is the inbox prefix of workers' connections: the only
	// reply subjects a worker may subscribe to, so it cannot read the
	// coordinator's replies.
	workerInbox = "_INBOX_RT_WORKER"
)

// ClientAuth is how a client proves itself to the NATS cluster.
type ClientAuth struct {
	User, Password string
	// CAFile is a PEM file of the authorities that sign the server's
	// certificate (for tls:// URLs); empty: the system's.
	CAFile string
	// TLS, if set, is the client's TLS configuration as is.
	TLS *tls.Config
}

func (a ClientAuth) options() []nats.Option {
	var o []nats.Option
	if a.User != "" {
		o = append(o, nats.UserInfo(a.User, a.Password))
	}
	if a.User == WorkerUser {
		o = append(o, nats.CustomInboxPrefix(workerInbox))
	}
	if a.CAFile != "" {
		o = append(o, nats.RootCAs(a.CAFile))
	}
	if a.TLS != nil {
		o = append(o, nats.Secure(a.TLS))
	}
	return o
}

// passwordPattern keeps a password printable and safe in a NATS
// configuration, quoted or not: nats-server parses an environment
// variable's value as a configuration value, so one starting with a
// digit would be read as a number.
var passwordPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.~-]{15,255}$`)

// CheckPassword says why a password given on the command line or in the
// environment is not acceptable.
func CheckPassword(field, p string) error {
	if !passwordPattern.MatchString(p) {
		return fmt.Errorf("%s: a NATS password is 16 to 256 characters of A-Z a-z 0-9 _ . ~ -, starting with a letter", field)
	}
	return nil
}

// NewPassword is a random password (192 bits), of passwordPattern.
func NewPassword() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "rt" + hex.EncodeToString(b)
}

// JetStreamLimits bound what the account may keep: a worker that floods
// the streams fills this, not the machine.
type JetStreamLimits struct {
	// Memory is the memory-storage bytes (the streams are on disk; this
	// bounds what a client could put in memory streams or consumers).
	Memory int64
	// Store is the disk bytes of all the account's streams.
	Store int64
}

// maxStreams is the account's stream limit: exactly the cluster's
// three, so no client can make a fourth.
const maxStreams = 3

// maxConsumers bounds the account's consumers: the workers' queue
// consumer, each search's result consumer and each task's reader.
const maxConsumers = 4096

func (l JetStreamLimits) withDefaults() JetStreamLimits {
	if l.Memory <= 0 {
		l.Memory = 64 << 20
	}
	if l.Store <= 0 {
		l.Store = 8 << 30
	}
	return l
}

// workerPublish are the subjects a worker may publish to: fetch from and
// acknowledge the one queue consumer, read the bfs data through
// ephemeral consumers, publish results and bfs data. Not allowed: tasks
// (rt.work), cancels, creating, purging or deleting streams, deleting the
// queue's consumer.
var workerPublish = []string{
	"$JS.API.INFO",
	"$JS.API.STREAM.INFO.*",
	"$JS.API.CONSUMER.INFO." + workStream + "." + workerConsumer,
	"$JS.API.CONSUMER.MSG.NEXT." + workStream + "." + workerConsumer,
	"$JS.ACK." + workStream + "." + workerConsumer + ".>",
	"$JS.API.CONSUMER.CREATE." + bfsStream + ".>",
	"$JS.API.CONSUMER.MSG.NEXT." + bfsStream + ".*",
	"$JS.API.CONSUMER.DELETE." + bfsStream + ".*",
	resultSubject + "*",
	bfsSubject + ">",
}

// workerSubscribe are the subjects a worker may subscribe to: its own
// inboxes and the cancels.
var workerSubscribe = []string{workerInbox + ".>", cancelSubject + "*"}

// AccountConfig is the NATS configuration of the cluster's account (the
// accounts block of a nats-server configuration file): the coordinator
// and worker users with these passwords (written as given: pass
// "$VAR" to have nats-server read an environment variable) and the
// JetStream limits. The embedded server uses it; deploy/nats.conf holds
// it for an external cluster.
func AccountConfig(coordinatorPassword, workerPassword string, l JetStreamLimits) string {
	l = l.withDefaults()
	quote := func(list []string) string {
		q := make([]string, len(list))
		for i, s := range list {
			q[i] = `"` + s + `"`
		}
		return strings.Join(q, ", ")
	}
	pw := func(p string) string {
		if strings.HasPrefix(p, "$") {
			return p
		}
		return `"` + p + `"`
	}
	return fmt.Sprintf(`accounts {
  %s {
    jetstream {
      max_memory: %d
      max_store: %d
      max_streams: %d
      max_consumers: %d
    }
    users: [
      {user: %s, password: %s}
      {user: %s, password: %s, permissions: {
        publish: {allow: [%s]}
        subscribe: {allow: [%s]}
      }}
    ]
  }
}
`, AccountName, l.Memory, l.Store, maxStreams, maxConsumers,
		CoordinatorUser, pw(coordinatorPassword), WorkerUser, pw(workerPassword),
		quote(workerPublish), quote(workerSubscribe))
}

// connOptions retry a lost connection for ever: a search notices a
// cluster that stays away (see Coordinator), a worker just waits.
func connOptions(name string, auth ClientAuth) []nats.Option {
	return append([]nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.RetryOnFailedConnect(false),
	}, auth.options()...)
}

// Environment variables a client reads its credentials from when no
// flag gives them (a password on the command line shows in ps).
const (
	EnvUser     = "RACETRACK_NATS_USER"
	EnvPassword = "RACETRACK_NATS_PASSWORD"
	EnvCA       = "RACETRACK_NATS_CA"
)

// AuthFromEnv is the ClientAuth of the environment, user defaulting to
// defaultUser when a password is set.
func AuthFromEnv(defaultUser string) ClientAuth {
	a := ClientAuth{User: os.Getenv(EnvUser), Password: os.Getenv(EnvPassword), CAFile: os.Getenv(EnvCA)}
	if a.User == "" && a.Password != "" {
		a.User = defaultUser
	}
	return a
}
