import Logging
import ServiceLifecycle
import StrataStorage

/// Starts the shutdown grace period as soon as a shutdown begins: when it ends, the statements still
/// running stop (``StrataRuntime/shutdown``), so that the server can finish and exit in time.
///
/// It must hear of the shutdown before the HTTP server, which waits for the requests in flight,
/// so it runs after the application in the outer service group (`runServer`), which tells the last
/// service first.
struct ShutdownGrace: Service {
    let runtime: StrataRuntime

    func run() async throws {
        try? await gracefulShutdown()
        runtime.beginDraining()
        let (grace, signal, logger) = (runtime.configuration.shutdownGrace, runtime.shutdown, runtime.logger)
        logger.info("Shutting down: no new connections; requests in flight may finish", metadata: ["grace": "\(grace)"])
        Task {
            try? await Task.sleep(for: grace)
            if !signal.isFired { logger.notice("Shutdown grace period over: stopping the statements still running") }
            signal.fire()
        }
    }
}

/// Closes the databases after the HTTP server has stopped (the service group stops services in
/// reverse order, and this one is registered before the server).
struct RuntimeShutdown: Service {
    let runtime: StrataRuntime

    func run() async throws {
        try? await gracefulShutdown()
        // When the group is cancelled (a service failed at start), this task is cancelled too; closing
        // must still run to completion, so it runs in a task of its own.
        let runtime = self.runtime
        await Task.detached { await runtime.close() }.value
        runtime.logger.info("Databases closed")
    }
}
