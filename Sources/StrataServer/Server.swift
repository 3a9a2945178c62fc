import StrataCore
import Hummingbird
import PostgresNIO
import JWTKit
import HummingbirdBcrypt
import Prometheus
import ServiceLifecycle
