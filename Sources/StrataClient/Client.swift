import StrataCore
