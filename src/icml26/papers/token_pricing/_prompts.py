"""The held-out prompts the real model answers ([P13] §6 uses LMSYS Chatbot Arena prompts in English, Spanish,
Russian and Chinese; these are our own, in the same four languages, shipped with the package).

Each language has a system prompt asking for a long, detailed answer in that language, and twelve user prompts
(everyday questions, explanations, advice, short creative tasks). Budgets take the first k of each language.
"""

from __future__ import annotations

__all__ = ["LANGUAGES", "PROMPTS", "SYSTEM"]

LANGUAGES = ("english", "spanish", "russian", "chinese")

SYSTEM = {
    "english": "You are a helpful assistant. Give long and detailed answers, in English.",
    "spanish": "Eres un asistente útil. Da respuestas largas y detalladas, en español.",
    "russian": "Ты полезный помощник. Давай длинные и подробные ответы на русском языке.",
    "chinese": "你是一个乐于助人的助手。请用中文给出详细而完整的回答。",
}

PROMPTS = {
    "english": (
        "Why do leaves change colour in autumn?",
        "Give me some tips for keeping a small vegetable garden on a balcony.",
        "How does a refrigerator keep food cold?",
        "Write a short story about a lighthouse keeper who finds a message in a bottle.",
        "What should I think about before adopting a dog?",
        "Explain how vaccines train the immune system.",
        "How can I prepare for a job interview at a software company?",
        "Describe the water cycle for a school presentation.",
        "What are the pros and cons of working from home?",
        "How do I make a simple tomato soup?",
        "Why is the sky blue during the day and red at sunset?",
        "Suggest a plan for learning to play the guitar in three months.",
    ),
    "spanish": (
        "¿Por qué las hojas cambian de color en otoño?",
        "Dame consejos para cuidar un pequeño huerto en el balcón.",
        "¿Cómo funciona un frigorífico?",
        "Escribe un cuento corto sobre una niña que encuentra un mapa antiguo.",
        "¿Qué debo tener en cuenta antes de comprar una bicicleta?",
        "Explica cómo se forman las nubes y la lluvia.",
        "¿Cómo puedo mejorar mi concentración cuando estudio?",
        "Describe la historia de la ciudad de Sevilla.",
        "¿Cuáles son las ventajas de aprender un segundo idioma?",
        "¿Cómo se prepara una tortilla de patatas?",
        "¿Qué hace que un volcán entre en erupción?",
        "Propón un plan de entrenamiento para correr diez kilómetros.",
    ),
    "russian": (
        "Почему осенью листья меняют цвет?",
        "Дай советы, как вырастить овощи на балконе.",
        "Как работает холодильник?",
        "Напиши короткий рассказ о коте, который потерялся в большом городе.",
        "Что нужно знать перед покупкой первого автомобиля?",
        "Объясни, как образуются облака и дождь.",
        "Как лучше подготовиться к экзамену по математике?",
        "Расскажи об истории Санкт-Петербурга.",
        "Какие плюсы и минусы у работы из дома?",
        "Как приготовить простой борщ?",
        "Почему небо голубое днём и красное на закате?",
        "Предложи план, как выучить английский язык за год.",
    ),
    "chinese": (
        "为什么秋天树叶会变色？",
        "请给我一些在阳台上种蔬菜的建议。",
        "冰箱是怎样保持食物低温的？",
        "写一个关于灯塔守护人发现漂流瓶的短故事。",
        "养狗之前应该考虑哪些问题？",
        "解释一下疫苗是如何训练免疫系统的。",
        "怎样才能在学习时更好地集中注意力？",
        "介绍一下长城的历史。",
        "在家办公有哪些优点和缺点？",
        "怎么做一碗简单的番茄鸡蛋面？",
        "为什么白天天空是蓝色的，而日落时是红色的？",
        "请制定一个三个月学会弹吉他的计划。",
    ),
}
