import StrataCore
import Hummingbird
import SQLiteNIO
import PostgresNIO
import JWTKit
import HummingbirdBcrypt
import Prometheus
import ServiceLifecycle
