import Foundation

/// nginx from Debian's package as a round-robin load balancer in front of `strata serve`
/// processes, on a free loopback port, configured as docs/DEPLOYMENT.md advises: request and
/// response bodies stream (no buffering to disk), no body size limit, keep-alive to the upstreams,
/// and a request that could not be sent to one server (refused connection) goes to the next, while
/// a write that reached a server that then died is answered 502, never sent twice.
struct NginxBalancer {
    let pid: pid_t
    let port: Int
    let directory: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func binary() throws -> String {
        for candidate in ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        throw Failure(description: "nginx is not installed; install Debian's package (apt-get install nginx), as .ci/run does")
    }

    /// The configuration for `upstreams` (ports on 127.0.0.1), listening on `port`, keeping its
    /// files under `directory`.
    static func configuration(port: Int, upstreams: [Int], directory: String) -> String {
        // Workers of a master started as root run as `nobody`, which cannot reach a test's
        // temporary directory; in a test the master's own user is fine.
        let user = geteuid() == 0 ? "user root;\n" : ""
        let servers = upstreams.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=30s;" }.joined(separator: "\n")
        return """
            \(user)worker_processes 1;
            daemon off;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                upstream strata {
            \(servers)
                    keepalive 16;
                }
                server {
                    listen 127.0.0.1:\(port);
                    client_max_body_size 0;
                    location / {
                        proxy_pass http://strata;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $http_host;
                        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                        proxy_request_buffering off;
                        proxy_buffering off;
                        proxy_read_timeout 120s;
                        proxy_next_upstream error timeout;
                        proxy_next_upstream_tries 3;
                    }
                }
            }

            """
    }

    /// Starts nginx in front of `upstreams` and waits until it accepts connections. A start that
    /// fails (another process took the free port first) or hangs (seen once on a loaded machine,
    /// with nothing in nginx's logs) is tried again on another port, three times in all.
    static func start(upstreams: [Int]) async throws -> NginxBalancer {
        var failures: [String] = []
        for _ in 0..<3 {
            do {
                return try await startOnce(upstreams: upstreams)
            } catch let failure as Failure {
                failures.append(failure.description)
            }
        }
        throw Failure(description: failures.joined(separator: "\n"))
    }

    private static func startOnce(upstreams: [Int]) async throws -> NginxBalancer {
        let binary = try binary()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-nginx-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let file = directory + "/nginx.conf"
        try configuration(port: port, upstreams: upstreams, directory: directory).write(toFile: file, atomically: true, encoding: .utf8)

        let pid = try spawnLogged(binary, ["-p", directory, "-c", file, "-e", directory + "/error.log"], log: directory + "/output.log")
        let balancer = NginxBalancer(pid: pid, port: port, directory: directory)
        switch try await awaitReady(child: pid, within: .seconds(20), every: .milliseconds(50), {
            guard let fd = try? RawHTTP.connect(port: port) else { return false }
            close(fd)
            return true
        }) {
        case .ready:
            return balancer
        case .exited:
            let log = balancer.log
            balancer.stop()
            throw Failure(description: "nginx exited at start: \(log)")
        case .timedOut:
            let log = balancer.log
            balancer.stop()
            throw Failure(description: "nginx did not listen on \(port) within 20 s: \(log)")
        }
    }

    /// What nginx wrote to its error log and output.
    var log: String {
        ["error.log", "output.log"].map { (try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8)) ?? "" }.joined(separator: "\n")
    }

    /// Stops nginx and removes its files. SIGTERM, not SIGKILL: the master stops its workers
    /// only when it is asked to, and a killed master would leave them serving the port.
    func stop() {
        _ = kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<200 where waitpid(pid, &status, WNOHANG) != pid {
            usleep(25_000)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
